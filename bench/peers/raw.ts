/**
 * Raw IndexedDB doing the job by hand: the floor. Items carry an `expiresAt` (epoch ms) field
 * with an index on it, the one equivalent of our expiry index; reads check it themselves.
 */
import { DEFAULT_TTL, freshName, writeBatches, type Dataset, type Item } from '../data.js'
import type { Fresh } from '../harness.js'

export const STORE = 'items'
export const EXPIRES_AT = 'expiresAt'
export type RawItem = Item & { expiresAt: number }

export function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    r.onsuccess = () => resolve(r.result)
    r.onerror = () => reject(r.error)
  })
}

export function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve()
    tx.onerror = () => reject(tx.error)
    tx.onabort = () => reject(tx.error)
  })
}

export function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const r = indexedDB.deleteDatabase(name)
    r.onsuccess = () => resolve()
    r.onerror = () => reject(r.error)
  })
}

/** The item as a hand-rolled TTL store keeps it when written at `writtenMs`. */
export function expiring(item: Item, writtenMs: number): RawItem {
  return { ...item, expiresAt: writtenMs + DEFAULT_TTL * 1000 }
}

/** A second raw store like the first, for writes across two stores. */
export const OTHER = 'other'

/** A store of settings beside the items, holding the items store's default TTL under its name. */
export const SETTINGS = 'settings'

/**
 * A fresh raw store (keyPath `id`, index on `expiresAt`) seeded with `data`; with `pair`,
 * {@link OTHER} beside it; with `settings`, {@link SETTINGS} beside it.
 */
export async function openRaw(data: Dataset, pair = false, settings = false): Promise<Fresh<IDBDatabase>> {
  const name = freshName('raw')
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const r = indexedDB.open(name, 1)
    r.onupgradeneeded = () => {
      for (const store of pair ? [STORE, OTHER] : [STORE]) r.result.createObjectStore(store, { keyPath: 'id' }).createIndex(EXPIRES_AT, EXPIRES_AT)
      if (settings) r.result.createObjectStore(SETTINGS).put({ defaultTtl: DEFAULT_TTL }, STORE)
    }
    r.onsuccess = () => resolve(r.result)
    r.onerror = () => reject(r.error)
  })
  const drop = async () => {
    db.close()
    await deleteDatabase(name)
  }
  for (const { at, items } of writeBatches(data)) await putMany(db, items.map((i) => expiring(i, at)))
  return { db, drop }
}

/** `get` plus the expiry check a hand-rolled store needs. */
export async function getLive(db: IDBDatabase, key: IDBValidKey, nowMs: number): Promise<RawItem | undefined> {
  const value: RawItem | undefined = await request(db.transaction(STORE).objectStore(STORE).get(key))
  return value && value.expiresAt > nowMs ? value : undefined
}

/**
 * `get` judged by settings read in the same transaction, as a store whose default TTL another
 * tab may change at any moment must judge: the item and the settings, two requests.
 */
export async function getJudged(db: IDBDatabase, key: IDBValidKey, nowMs: number): Promise<RawItem | undefined> {
  const tx = db.transaction([STORE, SETTINGS])
  const settings = request<{ defaultTtl: number }>(tx.objectStore(SETTINGS).get(STORE))
  const value: RawItem | undefined = await request(tx.objectStore(STORE).get(key))
  const { defaultTtl } = await settings
  return value && value.expiresAt - DEFAULT_TTL * 1000 + defaultTtl * 1000 > nowMs ? value : undefined
}

export async function put(db: IDBDatabase, value: RawItem): Promise<void> {
  const tx = db.transaction(STORE, 'readwrite')
  tx.objectStore(STORE).put(value)
  await committed(tx)
}

/** Many puts in one transaction. */
export async function putMany(db: IDBDatabase, values: RawItem[]): Promise<void> {
  const tx = db.transaction(STORE, 'readwrite')
  const store = tx.objectStore(STORE)
  for (const value of values) store.put(value)
  await committed(tx)
}

/** Puts into both stores of a pair in one transaction. */
export async function putAcross(db: IDBDatabase, values: RawItem[], others: RawItem[]): Promise<void> {
  const tx = db.transaction([STORE, OTHER], 'readwrite')
  for (const value of values) tx.objectStore(STORE).put(value)
  for (const value of others) tx.objectStore(OTHER).put(value)
  await committed(tx)
}

export function getAll(db: IDBDatabase): Promise<RawItem[]> {
  return request(db.transaction(STORE).objectStore(STORE).getAll())
}

/** The purge floor: one transaction, the expired keys by `getAllKeys(range)`, then a delete each. */
export async function purgeByIndexKeys(db: IDBDatabase, nowMs: number): Promise<number> {
  const tx = db.transaction(STORE, 'readwrite')
  const store = tx.objectStore(STORE)
  const keys = await request(store.index(EXPIRES_AT).getAllKeys(IDBKeyRange.upperBound(nowMs)))
  for (const key of keys) store.delete(key)
  await committed(tx)
  return keys.length
}

/** The floor below the floor: when the expired items are a primary-key range, one `delete(range)`. */
export async function purgeByKeyRange(db: IDBDatabase, range: IDBKeyRange): Promise<void> {
  const tx = db.transaction(STORE, 'readwrite')
  tx.objectStore(STORE).delete(range)
  await committed(tx)
}

/** IndexedDB's own count of every item, expired or not. */
export function count(db: IDBDatabase): Promise<number> {
  return request(db.transaction(STORE).objectStore(STORE).count())
}
