/**
 * The writes of a transaction (`transaction.ts`), on a store of it: every rule of the handle's
 * writes, judged by the settings the transaction read and its one instant, with dead holders
 * claimed in place (`writes/claim.ts`) and observers told in the same transaction.
 */
import type { DeletedItem } from '../events/listeners.js'
import { EXPIRY_INDEX } from '../layout/expiry-index.js'
import { check, isPlainObject, stampAt, unstamp } from '../layout/stamp.js'
import { knownWatermarks } from '../layout/held-settings.js'
import { keyPathValue, req } from '../platform/request.js'
import { cutoffs, type StoreState } from '../rules/policy.js'
import type { TtlValues } from '../rules/ttl.js'
import { putClaiming } from '../writes/claim.js'
import { itemAt, refusedAt, type Changes, type Item } from '../writes/write-steps.js'
import { checkChanges, updated } from '../writes/update.js'
import type { WriteObserver } from './observers.js'

/** One store of a transaction, as its writes see it. */
export interface WriteTarget {
  store: IDBObjectStore
  /** The store's settings, read in the transaction on first call. */
  state: () => Promise<StoreState>
  now: number
  mode: TtlValues
  keepTs: boolean
  observers: readonly WriteObserver[]
  /** Whether a `put` may be refused for a holder ({@link mayConflict}), as the transaction found once for the store. */
  putsConflict: boolean
  /** Hears what was stored and the dead items claimed for it. */
  wrote(stored: Item[], claimed: DeletedItem[]): void
  /** The keys of the live items in `query` (every live item: `null`), judged in the transaction. */
  liveKeys(query: IDBValidKey | IDBKeyRange | null): Promise<IDBValidKey[]>
  /**
   * Aborts the transaction for a call that failed after some of its requests were issued: a call
   * that rejects leaves nothing of itself written (SPEC §11), and IndexedDB has no savepoint.
   */
  abandon(error: unknown): void
}

/**
 * Stores `values` in order; all are validated, keys included, before the first request. Where no
 * write can be refused for a holder, every request is made at once; otherwise one after the other
 * (a value written after claiming room must not land after a later one). Resolves to their keys.
 * As the handle's writes do, values are stamped above the watermarks the realm knows
 * (`layout/held-settings.ts`); the settings judge only the holders of a key a write is refused.
 */
export async function putIn(
  target: WriteTarget,
  values: readonly unknown[],
  method: 'put' | 'add',
  keys: readonly (IDBValidKey | undefined)[] | undefined,
  where: (i: number) => string,
): Promise<IDBValidKey[]> {
  const checked = Array.from(values, (value, i) => check(value, target.mode, where(i), target.keepTs))
  const { store, now } = target
  checked.forEach((value, i) => checkKey(store, value.fields, keys?.[i], where(i)))
  const cut = async () => cutoffs(await target.state(), now)
  const written: IDBValidKey[] = []
  const claimed: DeletedItem[] = []
  const watermarks = knownWatermarks(store.transaction.db.name, store.name)
  const stored = checked.map((value) => stampAt(value, now, watermarks))
  let made = 0
  const putOne = (value: Item, i: number) => putClaiming(store, method, value, keys?.[i], cut, (items) => claimed.push(...items), where(i), () => made++)
  try {
    if (target.observers.length === 0 && !(method === 'put' ? target.putsConflict : mayConflict(store, method))) {
      // Nothing can refuse one of them for a holder: every put is made at once, in order, up to
      // the first IndexedDB refuses at once (none after it is made).
      const puts: Promise<IDBValidKey>[] = []
      for (const [i, value] of stored.entries()) {
        const before = made
        puts.push(putOne(value, i))
        if (made === before) break
      }
      // One put (`tx.put`, the common call) is awaited alone: no `Promise.all` of it.
      if (puts.length === 1) written.push(await puts[0])
      else written.push(...(await Promise.all(puts)))
    } else {
      // One after the other: a value written after claiming room must not land after a later one.
      for (const [i, value] of stored.entries()) {
        const key = await putOne(value, i)
        for (const observer of target.observers) observer.put(store.transaction, key, unstamp(value))
        written.push(key)
      }
    }
  } catch (error) {
    // What IndexedDB refused only once asked (a value it cannot clone, an observer's refusal)
    // must not leave the requests of the call made before it; with none made, the transaction
    // goes on, as the callback may catch the error.
    if (made > 0) target.abandon(error)
    throw error
  }
  target.wrote(stored, claimed)
  return written
}

/**
 * Whether a `method` of `store` may be refused with `ConstraintError` for a holder (an `add`'s
 * key, a unique index's value), which a write then claims from dead holders in further steps.
 */
export function mayConflict(store: IDBObjectStore, method: 'put' | 'add'): boolean {
  if (method === 'add') return true
  for (const name of Array.from(store.indexNames)) if (name !== EXPIRY_INDEX && store.index(name).unique) return true
  return false
}

/**
 * Throws the `DataError` IndexedDB would throw for `value`'s key in `store` (none, or not a valid
 * key), before any request of the call is issued: such a refusal, caught by the callback, leaves
 * the transaction going and nothing of the call written.
 */
function checkKey(store: IDBObjectStore, value: unknown, key: IDBValidKey | undefined, where: string): void {
  const { keyPath, autoIncrement } = store
  // A key path through a string's `length`, a Blob's `size`…: IndexedDB's to evaluate, not ours.
  if (keyPath !== null && key === undefined && !walksObjects(value, keyPath)) return
  const inline = keyPath === null ? key : keyPathValue(value, keyPath)
  let problem: string | undefined
  if (keyPath !== null && key !== undefined) problem = 'a key was given to a store with a key path'
  // An autoIncrement store generates the missing key (in-line: only with a single key path).
  else if (inline === undefined) problem = autoIncrement && !Array.isArray(keyPath) ? undefined : 'there is no key'
  else if (!isValidKey(inline)) problem = 'the key is not a valid IndexedDB key'
  if (problem !== undefined) throw refusedAt(new DOMException(problem, 'DataError'), where, keyPath)
}

/** Whether every step of `keyPath` in `value` but the last is a plain object, or missing. */
function walksObjects(value: unknown, keyPath: string | string[]): boolean {
  // A key path of one step (`'id'`, the common one) walks nothing before its last.
  if (typeof keyPath === 'string' && !keyPath.includes('.')) return true
  return [keyPath].flat().every((path) => {
    let current = value
    for (const step of path === '' ? [] : path.split('.').slice(0, -1)) {
      current = (current as Record<string, unknown>)[step]
      if (current === undefined || current === null) return true
      if (!isPlainObject(current)) return false
    }
    return true
  })
}

function isValidKey(key: unknown): boolean {
  try {
    indexedDB.cmp(key, key)
    return true
  } catch {
    return false
  }
}

/** `update` in the transaction: `changes` merged into the live item at `key`, stamped at its instant. */
export async function updateIn(target: WriteTarget, key: IDBValidKey, changes: Changes): Promise<Item> {
  const { store, now } = target
  checkChanges(store.name, key, changes)
  const settings = target.state()
  const existing = await req(store.get(key))
  const state = await settings
  const ctx = { mode: target.mode, keepTs: target.keepTs }
  const next = updated(ctx, store.name, key, store.keyPath, existing, state, now, changes)
  const claimed: DeletedItem[] = []
  const written = await putClaiming(store, 'put', next, store.keyPath === null ? key : undefined, cutoffs(state, now), (items) => claimed.push(...items), itemAt(store.name, key))
  const item = unstamp(next)
  try {
    for (const observer of target.observers) observer.put(store.transaction, written, item)
  } catch (error) {
    target.abandon(error)
    throw error
  }
  target.wrote([next], claimed)
  return item
}

/**
 * Deletes by key or range (every item when `query` is null); observers hear each live key
 * deleted. An expired item's delete is a no-op (SPEC §2): the dead copy goes from the disk, and
 * no observer hears of it (a mirror would otherwise push the delete of a copy the server may
 * still hold alive).
 */
export async function deleteIn(target: WriteTarget, query: IDBValidKey | IDBKeyRange | null): Promise<void> {
  const { store, observers } = target
  const keys = observers.length > 0 ? await target.liveKeys(query) : []
  await req(query === null ? store.clear() : store.delete(query))
  try {
    for (const key of keys) for (const observer of observers) observer.delete(store.transaction, key)
  } catch (error) {
    target.abandon(error)
    throw error
  }
  target.wrote([], [])
}
