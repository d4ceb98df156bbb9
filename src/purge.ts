/**
 * Physical deletion of dead items in bounded batches over the expiry index. Runs the same on the
 * page and in the purge worker: no page-only APIs.
 *
 * Each batch is one read-write transaction: it reads the store's settings, takes up to
 * `batchSize` primary keys from the dead ranges of the expiry index, and deletes them. Keys come
 * from the index range under the settings read in the same transaction, so a live item is never
 * taken. Keys are collected before any delete (deleting under an open cursor broke in Safari),
 * and the next batch resumes at the last mark taken rather than at the start of the range,
 * which would rescan the tombstones just left behind.
 */
import { deadRanges, EXPIRY_INDEX, META_STORE } from './expiry-index.js'
import { cutoffs, type ExpiryMark, type StoreState } from './policy.js'
import { done, req } from './request.js'
import { markOfStored } from './stamp.js'

/** Keys taken per transaction unless told otherwise. */
export const DEFAULT_BATCH_SIZE = 300

export interface BatchResult {
  deleted: number
  /** Where the next batch starts; `undefined` when the dead ranges were exhausted. */
  resume: ExpiryMark | undefined
  /** The store's settings as this batch read them. */
  state: StoreState
}

/** Deletes up to `batchSize` dead items of one store in one transaction. */
export async function purgeBatch(
  db: IDBDatabase,
  storeName: string,
  nowMs: number,
  batchSize: number = DEFAULT_BATCH_SIZE,
  from?: ExpiryMark,
): Promise<BatchResult> {
  const tx = db.transaction([storeName, META_STORE], 'readwrite')
  const committed = done(tx)
  committed.catch(() => {})
  const store = tx.objectStore(storeName)
  const index = store.index(EXPIRY_INDEX)
  const state = await req<StoreState>(tx.objectStore(META_STORE).get(storeName))
  let budget = batchSize
  let resume: ExpiryMark | undefined
  for (const range of deadRanges(cutoffs(state, nowMs), from)) {
    const keys = await req(index.getAllKeys(range, budget))
    budget -= keys.length
    if (budget === 0) resume = markOfStored(await req(store.get(keys[keys.length - 1])))
    for (const key of keys) store.delete(key)
    if (budget === 0) break
  }
  await committed
  return { deleted: batchSize - budget, resume, state }
}

/** Deletes every item of the store that is dead at `clock()`; returns how many. */
export async function purgeStore(
  db: IDBDatabase,
  storeName: string,
  clock: () => number,
  batchSize: number = DEFAULT_BATCH_SIZE,
): Promise<number> {
  let total = 0
  let from: ExpiryMark | undefined
  do {
    const batch = await purgeBatch(db, storeName, clock(), batchSize, from)
    total += batch.deleted
    from = batch.resume
  } while (from)
  return total
}
