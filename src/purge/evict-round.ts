/**
 * A round of eviction at a full disk (SPEC §9): each store with `evictOnQuota` gives up a share of
 * its live items, in its `evict` order. A step of quota relief (`relief.ts` re-exports it), so the full
 * entries load it with the steps, at the first write refused for lack of space (issue #44).
 */
import { evict, liveCount } from './eviction.js'
import type { Spare } from './quota.js'
import { publish, type DeletedItem } from '../events/listeners.js'
import { listeningStores, listensTo } from '../events/listening.js'
import type { PurgeReport } from '../events/reports.js'
import { generationValues } from '../generations/values.js'
import { META_STORE } from '../layout/expiry-index.js'
import { cutoffs, type StoreState } from '../rules/policy.js'
import { done, req } from '../platform/request.js'

/** The share of an opted-in store's live items given up in one round (at least one item). */
export const EVICTION_SHARE = 1 / 4

/**
 * Evicts `EVICTION_SHARE` of the store's live items (at least one) in its `evict` order, in one
 * transaction; resolves to the items once it committed (values only with `withValues`). The
 * items in `spare` are never given up: a write at a full disk that rewrites an item (`update`,
 * `touch`) must not lose that item to the room it makes for itself.
 */
export async function evictShare(
  db: IDBDatabase,
  storeName: string,
  nowMs: number,
  withValues: boolean,
  spare: readonly IDBValidKey[] = [],
): Promise<DeletedItem[]> {
  const tx = db.transaction([storeName, META_STORE], 'readwrite')
  const committed = done(tx)
  committed.catch(() => {})
  const store = tx.objectStore(storeName)
  const state = await req<StoreState>(tx.objectStore(META_STORE).get(storeName))
  const cut = cutoffs(state, nowMs)
  const live = await liveCount(store, cut)
  const items = live > 0 ? await evict(store, state, cut, Math.max(1, Math.ceil(live * EVICTION_SHARE)), withValues, spare) : []
  await committed
  return items
}

/**
 * One round of eviction: each of `stores` (those with `evictOnQuota`) gives up its share, each in
 * its own transaction through `open(store)`, but never the item `spare`. Every store's evictions
 * are reported to `onReport` and, to whoever listens, as `'evicted'` events. Resolves to how many
 * items went.
 */
export async function evictRound(
  dbName: string,
  stores: readonly string[],
  open: (store: string) => Promise<IDBDatabase>,
  nowMs: number,
  onReport: (report: PurgeReport) => void,
  spare?: Spare,
): Promise<number> {
  const listening = stores.length > 0 ? await listeningStores(dbName) : undefined
  let total = 0
  for (const store of stores) {
    const started = performance.now()
    const withValues = listensTo(listening, store)
    const items = await evictShare(await open(store), store, nowMs, withValues, spare?.store === store ? [spare.key] : [])
    if (items.length === 0) continue
    total += items.length
    onReport({ store, deleted: items.length, evicted: items.length, durationMs: performance.now() - started, more: false, nextExpiryMs: NaN })
    if (withValues) publish(dbName, { store, reason: 'evicted', items }, generationValues)
  }
  return total
}
