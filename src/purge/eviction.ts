/**
 * Eviction (SPEC §9): how many live items a store holds, and which of them it gives up first
 * when it holds more than `maxEntries` or the origin runs out of quota. Runs inside a caller's
 * read-write transaction, on the page or in the purge worker alike.
 *
 * Eviction orders come from two indexes: the expiry index (for `'soonest'`) and, on stores with
 * a capacity only, `$ts` over `_ts` (for `'oldest'`, and for the items that never expire, which
 * the expiry index does not hold). Stores without a capacity have no `$ts` index and pay nothing.
 */
import { TS_INDEX } from '../rules/capacity.js'
import { allDeadRanges, EXPIRY_INDEX } from '../layout/expiry-index.js'
import { liveRanges } from '../layout/next-death.js'
import { staleRanges } from '../layout/purge-ranges.js'
import { isDeadMark, markExpiryMs, type Cutoffs, type ExpiryMark, type StoreState } from '../rules/policy.js'
import { deletedItem, type DeletedItem } from '../events/listeners.js'
import { keyId, req } from '../platform/request.js'
import { markOfStored, orderOfStored } from '../layout/stamp.js'

/** Live items in the store now (the deletions already queued in its transaction counted). */
export async function liveCount(store: IDBObjectStore, cut: Cutoffs): Promise<number> {
  const index = store.index(EXPIRY_INDEX)
  const counts = await Promise.all([req(store.count()), ...allDeadRanges(cut).map((range) => req(index.count(range)))])
  return counts.reduce((live, dead) => live - dead)
}

/**
 * Up to `limit` keys of the live items the store gives up first, in its `evict` order, never
 * those in `spare` (the item a write at a full disk is rewriting: see `evictShare`).
 */
export async function victims(
  store: IDBObjectStore,
  state: StoreState,
  cut: Cutoffs,
  limit: number,
  spare: readonly IDBValidKey[] = [],
): Promise<IDBValidKey[]> {
  const spared = new Set(spare.map(keyId))
  const chosen = state.capacity?.evict === 'soonest' ? await soonest(store, state, cut, limit, spared) : []
  return chosen.length < limit ? [...chosen, ...(await oldest(store, cut, limit - chosen.length, [...spare, ...chosen]))] : chosen
}

/** Items that will expire, closest to expiry first (items that never expire are not among them). */
async function soonest(store: IDBObjectStore, state: StoreState, cut: Cutoffs, limit: number, spared: ReadonlySet<string>): Promise<IDBValidKey[]> {
  const index = store.index(EXPIRY_INDEX)
  const entries: { expiry: number; mark: ExpiryMark; key: IDBValidKey }[] = []
  for (const range of liveRanges(cut)) {
    const cursor = index.openKeyCursor(range)
    for (let c = await req(cursor), n = 0; c && n < limit; c = await req(cursor)) {
      const expiry = markExpiryMs(state, c.key as ExpiryMark)
      if (expiry === Infinity) break // the rest of this range never expires either
      if (!spared.has(keyId(c.primaryKey))) {
        entries.push({ expiry, mark: c.key as ExpiryMark, key: c.primaryKey })
        n++
      }
      c.continue()
    }
  }
  entries.sort((a, b) => a.expiry - b.expiry || a.mark - b.mark)
  return entries.slice(0, limit).map((entry) => entry.key)
}

/**
 * Live items, least recently written first, skipping keys already chosen. Dead items may still
 * be on disk (a TTL-off store's, which the background purge leaves; marks below where a pass
 * resumed): they are not live items to give up, so the values are read to tell. The `$ts` index
 * orders by `_ts`, whole seconds, then by key: the items of one second are ordered by when they
 * were written (`ORDER_FIELD`), so the walk reads the whole second at its end.
 */
async function oldest(store: IDBObjectStore, cut: Cutoffs, limit: number, skip: readonly IDBValidKey[]): Promise<IDBValidKey[]> {
  const taken = new Set(skip.map(keyId))
  const keys: IDBValidKey[] = []
  let second: { ts: unknown; items: { key: IDBValidKey; order: number }[] } = { ts: undefined, items: [] }
  const close = () => {
    // Stable: items written before the library kept an order stay in key order, first.
    second.items.sort((a, b) => a.order - b.order)
    for (const { key } of second.items.slice(0, limit - keys.length)) keys.push(key)
  }
  const cursor = store.index(TS_INDEX).openCursor()
  for (let c = await req(cursor); c; c = await req(cursor)) {
    if (second.ts === undefined) second.ts = c.key
    else if (indexedDB.cmp(c.key, second.ts) !== 0) {
      close()
      if (keys.length >= limit) return keys
      second = { ts: c.key, items: [] }
    }
    if (!taken.has(keyId(c.primaryKey)) && !isDeadMark(markOfStored(c.value), cut)) {
      second.items.push({ key: c.primaryKey, order: orderOfStored(c.value) })
    }
    c.continue()
  }
  close()
  return keys
}

/**
 * Deletes up to `limit` live items in the store's `evict` order, never those in `spare`; with
 * `withValues`, returns their values (for `onExpire`), keys only otherwise.
 */
export async function evict(
  store: IDBObjectStore,
  state: StoreState,
  cut: Cutoffs,
  limit: number,
  withValues: boolean,
  spare: readonly IDBValidKey[] = [],
): Promise<DeletedItem[]> {
  return take(store, await victims(store, state, cut, limit, spare), withValues)
}

/**
 * Deletes up to `limit` stale items (dead under `cut`, kept by the purge under `kept`: a grace's,
 * SPEC §15), before any live item goes, in expiry-index order (inheriting items by `_ts`, then
 * those with their own ttl by expiry); values as {@link evict}'s.
 */
export async function evictStale(store: IDBObjectStore, kept: Cutoffs, cut: Cutoffs, limit: number, withValues: boolean): Promise<DeletedItem[]> {
  const index = store.index(EXPIRY_INDEX)
  const keys: IDBValidKey[] = []
  for (const range of staleRanges(kept, cut)) {
    if (keys.length < limit) keys.push(...(await req(index.getAllKeys(range, limit - keys.length))))
  }
  return take(store, keys, withValues)
}

/** Deletes `keys` of `store`, with their values read first where asked for. */
async function take(store: IDBObjectStore, keys: IDBValidKey[], withValues: boolean): Promise<DeletedItem[]> {
  const values = withValues ? await Promise.all(keys.map((key) => req(store.get(key)))) : undefined
  for (const key of keys) store.delete(key)
  return keys.map((key, i) => deletedItem(store, key, values?.[i]))
}
