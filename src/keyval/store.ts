/**
 * `createStore`, as idb-keyval's (one connection per store, opened on first use, dropped when the
 * browser closes it), plus the store's time-to-live options; an opened connection starts a purge round.
 */
import { purgeAt } from './purge.js'
import { promisifyRequest } from './request.js'
import { declare } from './state.js'
import type { StoreOptions, UseStore } from './types.js'

/**
 * A store `storeName` in database `dbName`, created with the database if it does not exist yet
 * (as in idb-keyval: one store per database). `options.defaultTtl` gives the lifetime of the
 * entries written without a `ttl` of their own.
 * @throws TtlError `INVALID_TTL` for a `defaultTtl` that is not null, -1 or an integer 1 … 2147483647
 */
export function createStore(dbName: string, storeName: string, options?: StoreOptions): UseStore {
  let connection: Promise<IDBDatabase> | undefined
  const open = () => {
    if (!connection) {
      connection = factory(options?.bucket).then((idb) => {
        // Kept with the store (State.idb): Chromium stalls the connection for good once its bucket is collected.
        const request = (state.idb = idb).open(dbName)
        request.onupgradeneeded = () => request.result.createObjectStore(storeName)
        return promisifyRequest(request)
      })
      connection.then(
        (db) => {
          // What earlier pages left expired goes at the next idle time.
          purgeAt(use, 0)
          // Safari may close a connection by itself; it then fires close.
          db.onclose = () => (connection = undefined)
        },
        () => (connection = undefined),
      )
    }
    return connection
  }
  const use: UseStore = (txMode, callback) => open().then((db) => callback(db.transaction(storeName, txMode).objectStore(storeName)))
  const state = declare(use, `store "${storeName}"`, options)
  return use
}

/** The IndexedDB of Storage Bucket `bucket` where the platform has buckets, the global one otherwise. */
async function factory(bucket: string | undefined): Promise<IDBFactory> {
  const buckets = bucket && (globalThis.navigator as { storageBuckets?: { open(name: string): Promise<{ indexedDB: IDBFactory }> } } | undefined)?.storageBuckets
  return buckets ? (await buckets.open(bucket)).indexedDB : indexedDB
}

let defaultStore: UseStore | undefined

/** The store of the calls given none: `keyval` in database `keyval-store`, idb-keyval's. */
export function defaultGetStore(): UseStore {
  return (defaultStore ??= createStore('keyval-store', 'keyval'))
}
