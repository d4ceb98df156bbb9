/**
 * `update` (and `touch`, an update with no change) of the handle's calls, and the merge every
 * update shares (a transaction's, `transaction/tx-writes.ts`, and a generations store's,
 * `stashed-writes.ts`): loaded by the page entries with the handle's less common calls
 * (`assembly/calls.ts`, issue #44) at the first.
 */
import { kindOf, TtlError } from '../rules/errors.js'
import { cutoffs, isDeadMark, type StoreState } from '../rules/policy.js'
import type { DeletedItem } from '../events/listeners.js'
import { abortQuietly, keyPathValue, req } from '../platform/request.js'
import { usesGenerations } from '../layout/generation-index.js'
import { check, isPlainObject, markOfStored, stampAt, unstamp } from '../layout/stamp.js'
import { putClaiming } from './claim.js'
import { begin, itemAt, settingsFor, unlessClosed, type Changes, type Item, type WriteContext, type Written } from './write-steps.js'

/**
 * Rewrites the live item at `key` with `changes` merged in (or what `changes` returns, called
 * once), stamping a new `_ts`. Resolves to the item as reads now return it.
 * @throws TtlError `NOT_FOUND` when no live item holds `key`; `INVALID_VALUE` when the change
 * would move the item to another key
 */
export async function update(ctx: WriteContext, storeName: string, key: IDBValidKey, changes: Changes): Promise<Written<Item>> {
  checkChanges(storeName, key, changes)
  const { generations } = ctx
  if (generations && usesGenerations(ctx.db, storeName)) return unlessClosed(ctx.db, () => generations.update(ctx, storeName, key, changes))
  const now = ctx.clock()
  // Read first, not in the update's transaction: see `writes.ts` writeReading.
  const state = await settingsFor(ctx, storeName)
  const { tx, committed } = begin(ctx, [storeName])
  const store = tx.objectStore(storeName)
  const existing = await req(store.get(key))
  try {
    const next = updated(ctx, storeName, key, store.keyPath, existing, state, now, changes)
    const claimed: DeletedItem[] = []
    await putClaiming(store, 'put', next, store.keyPath === null ? key : undefined, cutoffs(state, now), (items) => claimed.push(...items), itemAt(storeName, key))
    await committed
    return { result: unstamp(next), claimed }
  } catch (error) {
    abortQuietly(tx)
    throw error
  }
}

/** @throws TtlError `INVALID_VALUE` when `changes` is neither a plain object nor a function */
export function checkChanges(storeName: string, key: IDBValidKey, changes: unknown): asserts changes is Changes {
  if (typeof changes !== 'function' && !isPlainObject(changes)) {
    throw new TtlError('INVALID_VALUE', `${itemAt(storeName, key)}: update takes changes as a plain object of fields, or a function of the item; got ${kindOf(changes)}`)
  }
}

/**
 * What `update` stores in place of `existing` (the item at `key` as stored, or `undefined`):
 * `changes` merged in, validated and stamped at `now`.
 * @throws TtlError `NOT_FOUND` when `existing` is not a live item; `INVALID_VALUE` when the
 * change would move the item to another key
 */
export function updated(
  ctx: Pick<WriteContext, 'mode' | 'keepTs'>,
  storeName: string,
  key: IDBValidKey,
  keyPath: string | string[] | null,
  existing: unknown,
  state: StoreState,
  now: number,
  changes: Changes,
): Item {
  const where = itemAt(storeName, key)
  if (existing === undefined || isDeadMark(markOfStored(existing), cutoffs(state, now))) {
    throw new TtlError('NOT_FOUND', `${where}: no live item to update`)
  }
  const current = unstamp(existing) as Item
  const merged = typeof changes === 'function' ? changes({ ...current }) : { ...current, ...changes }
  // keepTs keeps a _ts the update sets, never the one the item already had (touch restarts).
  const setsTs = typeof changes === 'function' ? merged?._ts !== current._ts : Object.hasOwn(changes, '_ts')
  const next = stampAt(check(merged, ctx.mode, where, ctx.keepTs && setsTs), now, state)
  if (keyPath !== null && !sameKey(keyPathValue(next, keyPath), key)) {
    throw new TtlError('INVALID_VALUE', `${where}: an update cannot change the key of an item (key path ${JSON.stringify(keyPath)})`)
  }
  return next
}

/** Whether `a` is the key `b` (`false` when `a` is no key at all: absent, or not a valid key). */
function sameKey(a: unknown, b: IDBValidKey): boolean {
  try {
    return a !== undefined && indexedDB.cmp(a, b) === 0
  } catch {
    return false
  }
}
