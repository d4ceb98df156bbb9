/**
 * The registry of databases seen: per database and bucket, when this origin last had it open
 * and how many items it held then, so that an open can tell a database the browser took from a
 * new one (`handle/lost.ts`). It is a database of its own, in a bucket of its own (asked to be
 * persisted) where the platform has Storage Buckets, so that the eviction of a database's bucket
 * leaves it; in the default bucket elsewhere, where what evicts the database evicts it too
 * (docs/storage.md).
 */
import { storageBuckets } from './bucket.js'
import { done, req } from './request.js'

/** The registry's database, and its bucket where the platform has buckets. */
export const REGISTRY = 'idb-ttl-seen'
const STORE = 'seen'

/** What the registry holds of a database. */
export interface Seen {
  /** When this origin last had the database open, epoch ms. */
  lastSeen: number
  /** How many items its stores held then. */
  items: number
}

let opening: Promise<IDBDatabase> | undefined

/**
 * The registry's IndexedDB, by its connection, for as long as the connection lives: Chromium
 * stalls every transaction of a connection, for good, once the Storage Bucket it came from is
 * garbage collected.
 */
const factories = new WeakMap<IDBDatabase, IDBFactory>()

async function factory(): Promise<IDBFactory> {
  const buckets = storageBuckets()
  return buckets ? (await buckets.open(REGISTRY, { persisted: true })).indexedDB : indexedDB
}

function registry(): Promise<IDBDatabase> {
  opening ??= factory()
    .then((idb) => {
      const request = idb.open(REGISTRY, 1)
      request.onupgradeneeded = () => request.result.createObjectStore(STORE)
      return req(request).then((db) => factories.set(db, idb) && db)
    })
    .then((db) => {
      // Another realm deleting the registry, or the browser closing it: the next use reopens it.
      db.onversionchange = db.onclose = () => {
        db.close()
        opening = undefined
      }
      return db
    })
  opening.catch(() => (opening = undefined))
  return opening
}

const keyOf = (name: string, bucket: string | null) => [bucket ?? '', name]

/** What the registry holds of database `name` in `bucket` (`null`: the default bucket). */
export async function lastSeen(name: string, bucket: string | null): Promise<Seen | undefined> {
  const db = await registry()
  return req(db.transaction(STORE).objectStore(STORE).get(keyOf(name, bucket)))
}

/** Records `seen` for database `name` in `bucket`; `undefined` forgets it (the app deleted the database). */
export async function recordSeen(name: string, bucket: string | null, seen: Seen | undefined): Promise<void> {
  const db = await registry()
  const tx = db.transaction(STORE, 'readwrite', { durability: 'relaxed' })
  const store = tx.objectStore(STORE)
  if (seen) store.put(seen, keyOf(name, bucket))
  else store.delete(keyOf(name, bucket))
  await done(tx)
}

/**
 * Forgets database `name` in `bucket` (the app deleted it: a later open that creates it is no
 * loss), without creating the registry where there is none.
 */
export async function forgetSeen(name: string, bucket: string | null): Promise<void> {
  const buckets = storageBuckets()
  const listed = buckets ? (await buckets.keys()).includes(REGISTRY) : (await indexedDB.databases?.())?.some((db) => db.name === REGISTRY)
  if (opening || listed !== false) await recordSeen(name, bucket, undefined)
}
