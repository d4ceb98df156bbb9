/**
 * The undoing of what a write refused for lack of space left behind (Firefox at its quota,
 * docs/capacity-and-quota.md). Exported by `relieve.ts`, so that the page entries load it with
 * quota relief's steps, at the first full disk (issue #44): the handle hands it to the writes as
 * `WriteContext.undoLeaked` and to transactions (`handle/core-routes.ts`).
 */
import { EXPIRY_INDEX } from '../layout/expiry-index.js'
import { done, req } from '../platform/request.js'
import { markOfStored, writeOfStored } from '../layout/stamp.js'

/** {@link undoLeaked}, as the handle hands it: loaded on first use. */
export type UndoLeaked = typeof undoLeaked

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
