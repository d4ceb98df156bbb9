/**
 * The naive ways to do the job on a hand-rolled `expiresAt` store: read everything and filter,
 * delete with one transaction per key (as workbox-expiration does), delete under an index cursor.
 */
import { committed, EXPIRES_AT, request, STORE, type RawItem } from './raw.js'

/** Walks a cursor to its end, calling `visit` on each position. */
function walk<C extends IDBCursor>(r: IDBRequest<C | null>, visit: (cursor: C) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    r.onerror = () => reject(r.error)
    r.onsuccess = () => {
      const cursor = r.result
      if (!cursor) return resolve()
      visit(cursor)
      cursor.continue()
    }
  })
}

/** Live items by a value cursor over the whole store, filtered by hand. */
export async function cursorFilter(db: IDBDatabase, nowMs: number): Promise<RawItem[]> {
  const out: RawItem[] = []
  await walk<IDBCursorWithValue>(db.transaction(STORE).objectStore(STORE).openCursor(), (c) => {
    if ((c.value as RawItem).expiresAt > nowMs) out.push(c.value)
  })
  return out
}

/** Live items counted by reading every item and filtering. */
export async function countByReading(db: IDBDatabase, nowMs: number): Promise<number> {
  const values: RawItem[] = await request(db.transaction(STORE).objectStore(STORE).getAll())
  return values.filter((v) => v.expiresAt > nowMs).length
}

/** workbox-expiration's way: collect the expired keys, then one transaction per delete. */
export async function purgeKeyPerTransaction(db: IDBDatabase, nowMs: number): Promise<number> {
  const keys = await request(
    db.transaction(STORE).objectStore(STORE).index(EXPIRES_AT).getAllKeys(IDBKeyRange.upperBound(nowMs)),
  )
  for (const key of keys) {
    const tx = db.transaction(STORE, 'readwrite')
    tx.objectStore(STORE).delete(key)
    await committed(tx)
  }
  return keys.length
}

/** One transaction, `cursor.delete()` under a cursor over the index's expired range. */
export async function purgeIndexCursor(db: IDBDatabase, nowMs: number): Promise<number> {
  const tx = db.transaction(STORE, 'readwrite')
  const done = committed(tx)
  let deleted = 0
  await walk<IDBCursorWithValue>(tx.objectStore(STORE).index(EXPIRES_AT).openCursor(IDBKeyRange.upperBound(nowMs)), (c) => {
    c.delete()
    deleted++
  })
  await done
  return deleted
}
