/** The public types of `idb-ttl/keyval`: idb-keyval's `UseStore`, and the options it adds. */

/**
 * A store: a function that runs `callback` with the object store in a transaction of `txMode`.
 * The same type as idb-keyval's, so a custom store written for it works here too.
 */
export type UseStore = <T>(txMode: IDBTransactionMode, callback: (store: IDBObjectStore) => T | PromiseLike<T>) => Promise<T>

/** The third argument of `createStore`. */
export interface StoreOptions {
  /**
   * The lifetime, in seconds, of an entry written without its own `ttl`: `-1` (the default)
   * never expires, `1` … `2147483647` seconds after its last write, `null` turns time to live off
   * for the store (no entry written through it expires, even one given a `ttl`).
   */
  defaultTtl?: number | null
  /** Epoch ms, `Date.now` by default: tests inject their own. Within a store, time never runs backwards. */
  clock?: () => number
  /**
   * The Storage Bucket the database lives in (`navigator.storageBuckets.open(bucket)`, Chromium
   * 122+), the default bucket where the platform has none: the same name as the `bucket` of an
   * `openTtlDB` of this database. A bad name fails the store's first call with the browser's `TypeError`.
   */
  bucket?: string
}

/** The third argument of `set`, `setMany` and `update`, when it is not a store. */
export interface SetOptions {
  /**
   * The entry's lifetime in seconds from this write: `1` … `2147483647`, or `-1` never; absent or
   * `null` takes the store's `defaultTtl`.
   */
  ttl?: number | null
  /** The store, the default one (`keyval-store`/`keyval`) when absent. */
  store?: UseStore
}
