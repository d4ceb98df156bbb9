/**
 * The writes of a transaction (`transaction.ts`), on a store of it: every rule of the handle's
 * writes, judged by the settings the transaction read and its one instant, with dead holders
 * claimed in place (`writes/claim.ts`) and observers told in the same transaction.
 */
import type { DeletedItem } from '../events/listeners.js'
import { check, stampAt, unstamp } from '../layout/stamp.js'
import { req } from '../platform/request.js'
import { cutoffs, type StoreState } from '../rules/policy.js'
import type { TtlValues } from '../rules/ttl.js'
import { putClaiming } from '../writes/claim.js'
import { checkChanges, itemAt, updated, type Changes, type Item } from '../writes/write-steps.js'
import type { WriteObserver } from './observers.js'

/** One store of a transaction, as its writes see it. */
export interface WriteTarget {
  store: IDBObjectStore
  state: Promise<StoreState>
  now: number
  mode: TtlValues
  keepTs: boolean
  observers: readonly WriteObserver[]
  /** Hears what was stored and the dead items claimed for it. */
  wrote(stored: Item[], claimed: DeletedItem[]): void
}

/**
 * Stores `values` one after the other (a value written after claiming room must not land after
 * a later one); all are validated before the first request. Resolves to their keys.
 */
export async function putIn(
  target: WriteTarget,
  values: readonly unknown[],
  method: 'put' | 'add',
  keys: readonly (IDBValidKey | undefined)[] | undefined,
  where: (i: number) => string,
): Promise<IDBValidKey[]> {
  const checked = Array.from(values, (value, i) => check(value, target.mode, where(i), target.keepTs))
  const state = await target.state
  const cut = cutoffs(state, target.now)
  const written: IDBValidKey[] = []
  const claimed: DeletedItem[] = []
  const stored = checked.map((value) => stampAt(value, target.now, state))
  for (const [i, value] of stored.entries()) {
    const key = await putClaiming(target.store, method, value, keys?.[i], cut, (items) => claimed.push(...items), where(i))
    for (const observer of target.observers) observer.put(target.store.transaction, key, unstamp(value))
    written.push(key)
  }
  target.wrote(stored, claimed)
  return written
}

/** `update` in the transaction: `changes` merged into the live item at `key`, stamped at its instant. */
export async function updateIn(target: WriteTarget, key: IDBValidKey, changes: Changes): Promise<Item> {
  const { store, now } = target
  checkChanges(store.name, key, changes)
  const existing = await req(store.get(key))
  const state = await target.state
  const ctx = { mode: target.mode, keepTs: target.keepTs }
  const next = updated(ctx, store.name, key, store.keyPath, existing, state, now, changes)
  const claimed: DeletedItem[] = []
  const written = await putClaiming(store, 'put', next, store.keyPath === null ? key : undefined, cutoffs(state, now), (items) => claimed.push(...items), itemAt(store.name, key))
  const item = unstamp(next)
  for (const observer of target.observers) observer.put(store.transaction, written, item)
  target.wrote([next], claimed)
  return item
}

/** Deletes by key or range (every item when `query` is null); observers hear each key deleted. */
export async function deleteIn(target: WriteTarget, query: IDBValidKey | IDBKeyRange | null): Promise<void> {
  const { store, observers } = target
  const keys = observers.length > 0 ? await req(store.getAllKeys(query ?? undefined)) : []
  await req(query === null ? store.clear() : store.delete(query))
  for (const key of keys) for (const observer of observers) observer.delete(store.transaction, key)
  target.wrote([], [])
}
