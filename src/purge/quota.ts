/**
 * Writes at a full disk (SPEC §9): a write refused with `QuotaExceededError` is retried after
 * every expired item of the database was purged, then after each round in which the stores with
 * `evictOnQuota` gave up a share of their live items, a bounded number of times. Each attempt is
 * the whole write in one transaction, so a write that never fits leaves nothing behind, and the
 * caller sees the original error. A realm makes room in a database for one write at a time.
 *
 * After purging and after each round of eviction, the generations no row refers to any more are
 * deleted (`generations/values.ts`): for stores that keep their values there, that is what gives room
 * back in Chromium and WebKit, which free deleted records only when their storage compacts. For
 * stores whose rows hold their values themselves, evicting goes on only while it gives room back:
 * where the browser reports its usage (`navigator.storage.estimate()`), a round after which the
 * usage did not drop is the last, so that one full disk does not empty them for nothing.
 */
import { evict, liveCount } from './eviction.js'
import { listeningStores, listensTo, publish } from '../events/listeners.js'
import { generationValues } from '../generations/values.js'
import { EXPIRY_INDEX, META_STORE } from '../layout/expiry-index.js'
import { cutoffs, type StoreState } from '../rules/policy.js'
import type { DeletedItem } from '../events/listeners.js'
import { done, req } from '../platform/request.js'
import { markOfStored, writeOfStored } from '../layout/stamp.js'
import type { PurgeReport } from '../events/reports.js'
import { isQuotaError } from '../platform/storage.js'

/** Rounds of eviction before a write is given up. */
export const EVICTION_ROUNDS = 8
/** The share of an opted-in store's live items given up in one round (at least one item). */
export const EVICTION_SHARE = 1 / 4

/** What can make room. Each may fail (the disk is full): a failure counts as no room made. */
export interface QuotaRelief {
  /** The database's name: a realm makes room in it for one write at a time. */
  database: string
  /** Purges every expired item of the database; resolves to how many went. */
  purgeExpired(): Promise<number>
  /** One round of eviction from the opted-in stores; resolves to how many items went. */
  evictShare(): Promise<number>
  /**
   * Deletes the generations no row refers to any more (`generations/values.ts`); resolves to how many
   * went, `undefined` when no store keeps its values in generations.
   */
  dropGenerations(): Promise<number | undefined>
  /** The origin's storage usage in bytes, where the browser reports it. */
  usage(): Promise<number | undefined>
}

/**
 * After generations were deleted, the write is tried again after waits that double from
 * {@link ROOM_WAIT_MS}: for up to {@link ROUND_WAIT_MS} before the next round of eviction, and
 * once eviction is over, for what is left of {@link ROOM_WAIT_BUDGET_MS}. Chromium 156 gives a
 * deleted database's room back after anything from no time to more than a second (measured at
 * a 10 MB quota: a write that made room took 55 ms at the median, 1.7 s at worst); evicting more
 * meanwhile would be for nothing.
 */
export const ROOM_WAIT_MS = 25
export const ROUND_WAIT_MS = 400
/** The most a write waits for the room of deleted generations to come back, in all. */
export const ROOM_WAIT_BUDGET_MS = 2_000

/**
 * A step of relief, run again if it fails: Firefox, after a write refused at its quota, refuses
 * the next write transaction of another database too (even one that only deletes), and the next
 * request of the refused one's connection; the one after goes through.
 */
const twice = <T>(step: () => Promise<T>): Promise<T> => step().catch(() => step())

/** Per database, the quota relief under way in this realm (settled once it ends, however). */
const relieving = new Map<string, Promise<void>>()

/**
 * Runs `attempt`, and again after each step of `relief` while it fails for lack of space. One
 * write at a time makes room in a database: side by side, a write whose rounds find every item
 * already given up and every generation already deleted by another's would give up at once,
 * without waiting for the room those deletions give back. A write refused while another makes
 * room tries again once that one is over, and makes room itself only if it still does not fit.
 */
export async function withQuotaRelief<T>(attempt: () => Promise<T>, relief: QuotaRelief): Promise<T> {
  try {
    return await attempt()
  } catch (error) {
    if (!isQuotaError(error)) throw error
    for (let other = relieving.get(relief.database); other; other = relieving.get(relief.database)) {
      await other
      try {
        return await attempt()
      } catch (retryError) {
        if (!isQuotaError(retryError)) throw retryError
      }
    }
    const mine = relieve(attempt, relief, error)
    const over = mine.then(
      () => {},
      () => {},
    )
    relieving.set(relief.database, over)
    void over.then(() => relieving.get(relief.database) === over && relieving.delete(relief.database))
    return mine
  }
}

/** The steps of {@link withQuotaRelief} after `attempt` failed with `error` for lack of space. */
async function relieve<T>(attempt: () => Promise<T>, relief: QuotaRelief, error: unknown): Promise<T> {
  let budget = ROOM_WAIT_BUDGET_MS
  /** Tries the write again, and while it does not fit, waits and tries again for up to `patience` ms. */
  const retry = async (patience: number): Promise<{ value: T } | undefined> => {
    for (let wait = 0, waited = 0; ; waited += wait) {
      try {
        return { value: await attempt() }
      } catch (retryError) {
        if (!isQuotaError(retryError)) throw retryError
      }
      wait = Math.max(ROOM_WAIT_MS, 2 * wait)
      if (waited + wait > patience || wait > budget) return undefined
      budget -= wait
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
  let droppedAny = false
  const dropGenerations = async () => {
    const dropped = await twice(() => relief.dropGenerations()).catch(() => 0)
    droppedAny ||= (dropped ?? 0) > 0
    return dropped
  }
  const purged = await twice(() => relief.purgeExpired()).catch(() => 0)
  const dropped = (await dropGenerations()) ?? 0
  const afterPurge = purged + dropped > 0 ? await retry(dropped > 0 ? ROUND_WAIT_MS : 0) : undefined
  if (afterPurge) return afterPurge.value
  let usage = await relief.usage()
  for (let round = 0; round < EVICTION_ROUNDS; round++) {
    if ((await twice(() => relief.evictShare()).catch(() => 0)) === 0) break // nothing left to give up
    const droppedNow = await dropGenerations()
    const afterEviction = await retry((droppedNow ?? 0) > 0 ? ROUND_WAIT_MS : 0)
    if (afterEviction) return afterEviction.value
    const usageNow = await relief.usage()
    // Deleting records may give no room back (Chromium): stop before emptying the stores for
    // nothing. Not where values are kept in generations: room comes back as each is emptied.
    if (droppedNow === undefined && usage !== undefined && usageNow !== undefined && usageNow >= usage) break
    usage = usageNow
  }
  const atLast = droppedAny ? await retry(budget) : undefined
  if (atLast) return atLast.value
  throw error
}

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

/** The item a write at a full disk rewrites, which quota relief must not give up. */
export interface Spare {
  store: string
  key: IDBValidKey
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

/** Keys deleted per transaction when undoing: at its quota, Firefox refuses a large delete transaction. */
const UNDO_CHUNK = 10

/**
 * Deletes what a transaction refused for lack of space left behind of `stored` (the values it
 * wrote). Firefox ESR 153, at its quota, keeps part of such a transaction's writes although it
 * reports the abort (docs/capacity-and-quota.md). Its copies are found by their expiry mark in the
 * expiry index and told from the other items of that second by their write (`$at`, the write
 * order, with `$by`, the realm that wrote it), then deleted, a few per transaction; values that never expire carry no mark and
 * cannot be found this way.
 */
export async function undoLeaked(db: IDBDatabase, storeName: string, stored: readonly object[]): Promise<void> {
  const marks = [...new Set(stored.map(markOfStored).filter((mark) => mark !== undefined))]
  if (marks.length === 0) return
  const writes = new Set(stored.map(writeOfStored))
  const index = db.transaction(storeName).objectStore(storeName).index(EXPIRY_INDEX)
  const found = await Promise.all(marks.map((mark) => Promise.all([req(index.getAllKeys(IDBKeyRange.only(mark))), req(index.getAll(IDBKeyRange.only(mark)))])))
  const keys = found.flatMap(([keys, values]) => keys.filter((_, i) => writes.has(writeOfStored(values[i]))))
  for (let i = 0; i < keys.length; i += UNDO_CHUNK) {
    const tx = db.transaction(storeName, 'readwrite')
    const committed = done(tx)
    for (const key of keys.slice(i, i + UNDO_CHUNK)) tx.objectStore(storeName).delete(key)
    await committed
  }
}
