/**
 * Public types. Store typing reuses idb's `DBSchema`: give `openTtlDB<MySchema>` a schema for
 * exact store, key, value and index types; omit it for loose ones.
 */
import type { DBSchema, IDBPDatabase, IndexKey, IndexNames, StoreKey, StoreNames, StoreValue } from 'idb'
import type { BucketOptions } from './bucket-options.js'
import type { DefaultTtl, TtlValues } from './ttl.js'

export type { DBSchema, DefaultTtl, TtlValues }

/** An index of a TTL store, created when the store is created or the version is raised. */
export interface IndexConfig {
  keyPath: string | string[]
  unique?: boolean
  multiEntry?: boolean
}

/** One object store: IndexedDB's own options plus its time-to-live default. */
export interface StoreConfig {
  keyPath?: string | string[]
  autoIncrement?: boolean
  /**
   * `null`/absent: TTL off. `-1`: on, items live until their own `ttl` says otherwise.
   * `n`: items expire n seconds after their last write. Applied when the store is created and
   * whenever this declaration changes; `setDefaultTtl` changes persist across reloads.
   */
  defaultTtl?: DefaultTtl
  indexes?: Record<string, IndexConfig>
  /**
   * Keep a written value's own `_ts` (a non-negative integer, epoch seconds) instead of stamping
   * the write time: a local copy of a document that carries its server's `_ts` (Cosmos DB)
   * expires exactly when the server's does — and is born dead if it already has. Values
   * without `_ts` are stamped as usual. Any other `_ts` is `INVALID_VALUE` in strict mode and
   * stamped with the write time in lenient mode. `update` keeps a `_ts` it is given (in
   * `changes`, or a changed one returned by its function); `touch` stamps the time. In a store
   * mirrored by `idb-ttl/cosmos`, the app's writes are edits and are stamped with the write
   * time whatever `_ts` they carry; only the mirror's own writes keep the server's.
   */
  keepTs?: boolean
  /**
   * The store mirrors an Azure Cosmos DB container through `idb-ttl/cosmos` (SPEC §12b): from
   * open, every write of it by any handle in any realm (a service worker included) is queued for
   * the next push, in the write's own transaction, whether or not `syncCosmos` was called there;
   * an id Cosmos DB cannot store is refused at write time (`INVALID_VALUE`). Needs
   * `keyPath: 'id'`; the mirror's own writes keep the server's `_ts` (as `keepTs` does), the
   * app's restart the countdown. Adding it to an existing database needs the version raised.
   */
  mirror?: boolean
  /**
   * Sliding expiry: every read that returns a live item (get, getAll, index reads, iterate)
   * restarts its countdown, as if it had been written at the read's `now`; `count` does not.
   * Reads stay read-only: the new `_ts` is written in batches soon after. Needs an in-line
   * `keyPath`.
   */
  touchOnRead?: boolean
  /**
   * At most this many live items (an integer ≥ 1): soon after a write that overfills the store,
   * the background purge evicts the surplus in `evict` order, reported to `onExpire` with reason
   * `'evicted'`. Until then reads may see more. Needs the version raised to add it to an
   * existing store (it adds an index over `_ts`).
   */
  maxEntries?: number
  /**
   * Which live items go first when the store gives some up: `'oldest'` (default) the least
   * recently written (smallest `_ts`), `'soonest'` the closest to expiry, items that never
   * expire last (oldest first among them).
   */
  evict?: EvictOrder
  /**
   * When a write (to any store) fails with `QuotaExceededError` even after every expired item was
   * purged, this store gives up live items in `evict` order, a share at a time, and the write
   * is retried (docs/capacity-and-quota.md). Stores without it never lose a live item to
   * quota handling. Needs the version raised to add it to an existing store. Such a store keeps
   * its values in generation databases (`<db>~gen~<store>~<n>`) deleted whole, except in
   * Firefox, where deleting records gives room back at once.
   */
  evictOnQuota?: boolean
  /**
   * A grace, in whole seconds (1 … 2147483647): an expired item stays on disk that long after it
   * expired, for `getStale` and `getAllStale` alone; every other read hides it from the instant it
   * expires. The purge deletes it when the grace ends; `maxEntries` and quota relief take such
   * items before any live one; only a new write of its key brings the key back (docs/stale.md).
   */
  keepExpired?: number
}

/** Eviction order of a store with a capacity: least recently written, or closest to expiry. */
export type EvictOrder = 'oldest' | 'soonest'

/** How expired items get physically deleted in the background. */
export interface PurgeOptions {
  /**
   * `'worker'` (default where `Worker` exists): slices run in a module Web Worker.
   * `'inline'` (default elsewhere, e.g. Node): the same slices on this thread.
   * `'off'`: no background purge; `purgeExpired` still works.
   */
  mode?: 'worker' | 'inline' | 'off'
  /**
   * Keys deleted per transaction; default 300. While the app is idle, a batch may go on to the end
   * of the second its last item expired in, up to 4 × `batchSize`.
   */
  batchSize?: number
  /** Real-time budget of one slice per store, in ms; default 30. */
  sliceMs?: number
  /** Longest sleep between checks, in ms; default 60 000. */
  maxIntervalMs?: number
  /** `requestIdleCallback` timeout, in ms; default 2 000. */
  idleTimeoutMs?: number
}

export interface OpenTtlDBOptions<S extends DBSchema | unknown = unknown> {
  /** Schema version; raise it to add stores or indexes. */
  version?: number
  /** The TTL-managed stores. Only these are reachable through the handle (`raw` sees all). */
  stores: { [N in StoreNames<S>]: StoreConfig }
  /** Current time in epoch milliseconds; default `Date.now`. Tests inject their own. */
  clock?: () => number
  purge?: PurgeOptions
  /** `'strict'` (default) rejects an invalid item `ttl`; `'lenient'` keeps it and inherits. */
  ttlValues?: TtlValues
  /** Durability hint for write transactions; default: the browser's. */
  durability?: IDBTransactionDurability
  /**
   * The Storage Bucket the database lives in, where the platform has them (Chromium 122+); the
   * default bucket elsewhere, which `db.storage()` reports (docs/storage.md). Every handle of the
   * database, in every tab and worker, must name the same bucket.
   */
  bucket?: BucketOptions
  /**
   * Told at open, before `openTtlDB` resolves, of a database the browser took (evicted, deleted)
   * since this origin last had it open, where a registry of the databases seen outlived it
   * (docs/storage.md says where it cannot); the handle's `lost` holds the same report. `idb-ttl`
   * and `idb-ttl/service-worker` only.
   */
  onLost?: (report: LostReport) => void
  /**
   * Runs after the library's own schema work inside the upgrade transaction, given idb's view of
   * the database (`raw.createObjectStore('plain')`). `idb-ttl/core` gives the native one instead:
   * {@link OpenTtlCoreDBOptions}.
   */
  upgrade?: (raw: IDBPDatabase<S>, oldVersion: number, newVersion: number | null) => void
}

/**
 * What `openTtlDB` of `idb-ttl/core` takes: the options of `idb-ttl`, but `upgrade` is given the
 * native `IDBDatabase` (and the version-change `IDBTransaction` after the versions), so that the
 * core carries no idb. An `upgrade` written for `idb-ttl` that uses idb's API on it takes its
 * view with `import { wrap } from 'idb'`: `const db = wrap(raw)`.
 */
export interface OpenTtlCoreDBOptions<S extends DBSchema | unknown = unknown> extends Omit<OpenTtlDBOptions<S>, 'upgrade' | 'onLost'> {
  /** Runs after the library's own schema work inside the upgrade transaction (`raw.createObjectStore('plain')`). */
  upgrade?: (raw: IDBDatabase, oldVersion: number, newVersion: number | null, transaction: IDBTransaction) => void
}

/**
 * The fields the library reads and writes on a value: add them to each value type of a typed
 * schema, so that writes may carry an item `ttl` and reads show `_ts`.
 *
 * @example
 * interface AppDB extends DBSchema {
 *   sessions: { key: string; value: { id: string; user: string } & TtlFields }
 * }
 * const db = await openTtlDB<AppDB>('app', { version: 1, stores: { sessions: { keyPath: 'id', defaultTtl: 3600 } } })
 * await db.put('sessions', { id: 'a', user: 'u1', ttl: 60 })
 */
export interface TtlFields {
  /**
   * The item's own time to live in seconds: absent or `null` inherits the store's `defaultTtl`,
   * `-1` never expires, an integer from 1 to 2147483647 expires that long after the last write.
   */
  ttl?: number | null
  /** Last write, whole Unix epoch seconds: set by every write (kept only on `keepTs` stores). */
  _ts?: number
}

/** What reads return: the value as written, plus `_ts`, its last write in epoch seconds. */
export type Stamped<T> = T & { _ts: number }

/** What writes accept: the value; a `_ts` of its own is overwritten. */
export type Writable<T> = T extends { _ts: number } ? Omit<T, '_ts'> & { _ts?: number } : T

export type { StoreNames, StoreKey, StoreValue, IndexNames, IndexKey }

/** What `update` merges into an item: some of its fields, or a function from the item to its new value. */
export type Changes<T> = Partial<Writable<T>> | ((item: Stamped<T>) => Writable<T>)

/** A key of store `N`, or a range of them. */
export type Query<S extends DBSchema | unknown, N extends StoreNames<S>> = StoreKey<S, N> | IDBKeyRange
/** A key of index `I` of store `N`, or a range of them. */
export type IndexQuery<
  S extends DBSchema | unknown,
  N extends StoreNames<S>,
  I extends IndexNames<S, N>,
> = IndexKey<S, N, I> | IDBKeyRange

/**
 * The reads a callback of `db.transaction` gets on the stores `N` it named: the handle's, with
 * the same rules, judged at the transaction's one instant (SPEC §11).
 */
export interface TtlReadTransaction<S extends DBSchema | unknown, N extends StoreNames<S>> {
  /** The underlying IndexedDB transaction: the physical view, as `db.raw` is. */
  readonly raw: IDBTransaction
  get<M extends N>(store: M, query: Query<S, M>): Promise<Stamped<StoreValue<S, M>> | undefined>
  getAll<M extends N>(store: M, query?: Query<S, M> | null, count?: number): Promise<Stamped<StoreValue<S, M>>[]>
  getAllKeys<M extends N>(store: M, query?: Query<S, M> | null, count?: number): Promise<StoreKey<S, M>[]>
  count<M extends N>(store: M, query?: Query<S, M> | null): Promise<number>
  getFromIndex<M extends N, I extends IndexNames<S, M>>(store: M, index: I, query: IndexQuery<S, M, I>): Promise<Stamped<StoreValue<S, M>> | undefined>
  getAllFromIndex<M extends N, I extends IndexNames<S, M>>(store: M, index: I, query?: IndexQuery<S, M, I> | null, count?: number): Promise<Stamped<StoreValue<S, M>>[]>
  getAllKeysFromIndex<M extends N, I extends IndexNames<S, M>>(store: M, index: I, query?: IndexQuery<S, M, I> | null, count?: number): Promise<StoreKey<S, M>[]>
  countFromIndex<M extends N, I extends IndexNames<S, M>>(store: M, index: I, query?: IndexQuery<S, M, I> | null): Promise<number>
}

/** A `'readwrite'` transaction: the reads, and the handle's writes with their rules (SPEC §11). */
export interface TtlWriteTransaction<S extends DBSchema | unknown, N extends StoreNames<S>> extends TtlReadTransaction<S, N> {
  put<M extends N>(store: M, value: Writable<StoreValue<S, M>>, key?: StoreKey<S, M>): Promise<StoreKey<S, M>>
  putAll<M extends N>(store: M, values: readonly Writable<StoreValue<S, M>>[]): Promise<StoreKey<S, M>[]>
  add<M extends N>(store: M, value: Writable<StoreValue<S, M>>, key?: StoreKey<S, M>): Promise<StoreKey<S, M>>
  update<M extends N>(store: M, key: StoreKey<S, M>, changes: Changes<StoreValue<S, M>>): Promise<Stamped<StoreValue<S, M>>>
  touch<M extends N>(store: M, key: StoreKey<S, M>): Promise<Stamped<StoreValue<S, M>>>
  delete<M extends N>(store: M, query: Query<S, M>): Promise<void>
  clear<M extends N>(store: M): Promise<void>
}

/** What `onLost` is told of a database the browser took since this origin last had it open. */
export interface LostReport {
  /** The database. */
  name: string
  /** The Storage Bucket it lived in; `null`: the default bucket. */
  bucket: string | null
  /** When this origin last had it open, epoch ms (by the handle's clock). */
  lastSeen: number
  /** How many items its declared stores held then. */
  items: number
}
