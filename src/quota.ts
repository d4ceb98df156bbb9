/**
 * Writes at a full disk (SPEC §9): a write refused with `QuotaExceededError` is retried after
 * every expired item of the database was purged, then after each round in which the stores with
 * `evictOnQuota` gave up a share of their live items, a bounded number of times. Each attempt is
 * the whole write in one transaction, so a write that never fits leaves nothing behind, and the
 * caller sees the original error.
 *
 * After purging and after each round of eviction, the generations no row refers to any more are
 * deleted (`generations.ts`): for stores that keep their values there, that is what gives room
 * back in Chromium and WebKit, which free deleted records only when their storage compacts. For
 * stores whose rows hold their values themselves, evicting goes on only while it gives room back:
 * where the browser reports its usage (`navigator.storage.estimate()`), a round after which the
 * usage did not drop is the last, so that one full disk does not empty them for nothing.
 */
import { evict, liveCount } from './eviction.js'
import { listeningStores, publish } from './events.js'
import { EXPIRY_INDEX, META_STORE } from './expiry-index.js'
import { cutoffs, type StoreState } from './policy.js'
import type { DeletedItem } from './purge.js'
import { done, req } from './request.js'
import { markOfStored } from './stamp.js'
import type { PurgeReport } from './scheduler.js'

/** Rounds of eviction before a write is given up. */
export const EVICTION_ROUNDS = 8
/** The share of an opted-in store's live items given up in one round (at least one item). */
export const EVICTION_SHARE = 1 / 4

/** What can make room. Each may fail (the disk is full): a failure counts as no room made. */
export interface QuotaRelief {
  /** Purges every expired item of the database; resolves to how many went. */
  purgeExpired(): Promise<number>
  /** One round of eviction from the opted-in stores; resolves to how many items went. */
  evictShare(): Promise<number>
  /**
   * Deletes the generations no row refers to any more (`generations.ts`); resolves to how many
   * went, `undefined` when no store keeps its values in generations.
   */
  dropGenerations(): Promise<number | undefined>
  /** The origin's storage usage in bytes, where the browser reports it. */
  usage(): Promise<number | undefined>
}

/**
 * After generations were deleted, the write is tried again at these delays (ms): Chromium gives
 * a deleted database's room back within moments, not always before the next request.
 */
export const ROOM_WAITS_MS = [0, 50, 100, 200, 400]

/** The origin's storage usage as the browser reports it; `undefined` where it does not. */
export async function storageUsage(): Promise<number | undefined> {
  try {
    return (await globalThis.navigator?.storage?.estimate?.())?.usage
  } catch {
    return undefined
  }
}

/** Whether the browser refused a write for lack of space. */
export function isQuotaError(error: unknown): boolean {
  return (error as DOMException | null)?.name === 'QuotaExceededError'
}

/** Runs `attempt`, and again after each step of `relief` while it fails for lack of space. */
export async function withQuotaRelief<T>(attempt: () => Promise<T>, relief: QuotaRelief): Promise<T> {
  try {
    return await attempt()
  } catch (error) {
    if (!isQuotaError(error)) throw error
    const retry = async (waits: readonly number[]): Promise<{ value: T } | undefined> => {
      for (const ms of waits) {
        if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms))
        try {
          return { value: await attempt() }
        } catch (retryError) {
          if (!isQuotaError(retryError)) throw retryError
        }
      }
      return undefined
    }
    const dropGenerations = () => relief.dropGenerations().catch(() => 0)
    const purged = await relief.purgeExpired().catch(() => 0)
    const dropped = (await dropGenerations()) ?? 0
    const afterPurge = purged + dropped > 0 ? await retry(dropped > 0 ? ROOM_WAITS_MS : [0]) : undefined
    if (afterPurge) return afterPurge.value
    let usage = await relief.usage()
    for (let round = 0; round < EVICTION_ROUNDS; round++) {
      if ((await relief.evictShare().catch(() => 0)) === 0) break // nothing left to give up
      const droppedNow = await dropGenerations()
      const afterEviction = await retry(droppedNow ? ROOM_WAITS_MS : [0])
      if (afterEviction) return afterEviction.value
      const usageNow = await relief.usage()
      // Deleting records may give no room back (Chromium): stop before emptying the stores for
      // nothing. Not where values are kept in generations: room comes back as each is emptied.
      if (droppedNow === undefined && usage !== undefined && usageNow !== undefined && usageNow >= usage) break
      usage = usageNow
    }
    throw error
  }
}

/**
 * Evicts `EVICTION_SHARE` of the store's live items (at least one) in its `evict` order, in one
 * transaction; resolves to the items once it committed (values only with `withValues`).
 */
export async function evictShare(db: IDBDatabase, storeName: string, nowMs: number, withValues: boolean): Promise<DeletedItem[]> {
  const tx = db.transaction([storeName, META_STORE], 'readwrite')
  const committed = done(tx)
  committed.catch(() => {})
  const store = tx.objectStore(storeName)
  const state = await req<StoreState>(tx.objectStore(META_STORE).get(storeName))
  const cut = cutoffs(state, nowMs)
  const live = await liveCount(store, cut)
  const items = live > 0 ? await evict(store, state, cut, Math.max(1, Math.ceil(live * EVICTION_SHARE)), withValues) : []
  await committed
  return items
}

/**
 * One round of eviction: each of `stores` (those with `evictOnQuota`) gives up its share, each in
 * its own transaction through `open(store)`. Every store's evictions are reported to `onReport`
 * and, to whoever listens, as `'evicted'` events. Resolves to how many items went.
 */
export async function evictRound(
  dbName: string,
  stores: readonly string[],
  open: (store: string) => Promise<IDBDatabase>,
  nowMs: number,
  onReport: (report: PurgeReport) => void,
): Promise<number> {
  const listening = stores.length > 0 ? await listeningStores(dbName) : undefined
  let total = 0
  for (const store of stores) {
    const started = performance.now()
    const withValues = listening === '*' || (listening?.has(store) ?? false)
    const items = await evictShare(await open(store), store, nowMs, withValues)
    if (items.length === 0) continue
    total += items.length
    onReport({ store, deleted: items.length, evicted: items.length, durationMs: performance.now() - started, more: false, nextExpiryMs: NaN })
    if (withValues) publish(dbName, { store, reason: 'evicted', items })
  }
  return total
}

/** Keys deleted per transaction when undoing: at its quota, Firefox refuses a large delete transaction. */
const UNDO_CHUNK = 10

/**
 * Deletes what a transaction refused for lack of space left behind of `stored` (the values it
 * wrote). Firefox ESR 153, at its quota, keeps part of such a transaction's writes although it
 * reports the abort (README, "Capacity and quota"). Each stored value carries a near-unique
 * expiry mark, so its copies are found by the expiry index and deleted, a few per transaction;
 * values that never expire carry none and cannot be told from an earlier item under the same key.
 */
export async function undoLeaked(db: IDBDatabase, storeName: string, stored: readonly object[]): Promise<void> {
  const marks = stored.map(markOfStored).filter((mark) => mark !== undefined)
  if (marks.length === 0) return
  const index = db.transaction(storeName).objectStore(storeName).index(EXPIRY_INDEX)
  const keys = (await Promise.all(marks.map((mark) => req(index.getAllKeys(IDBKeyRange.only(mark)))))).flat()
  for (let i = 0; i < keys.length; i += UNDO_CHUNK) {
    const tx = db.transaction(storeName, 'readwrite')
    const committed = done(tx)
    for (const key of keys.slice(i, i + UNDO_CHUNK)) tx.objectStore(storeName).delete(key)
    await committed
  }
}
