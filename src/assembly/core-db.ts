/**
 * The handle `idb-ttl/core`'s `openTtlDB` returns, and the base of the full one (`db.ts`): a table
 * of contents of the basic calls. Each method routes to the mechanism that does the work:
 * `reads/`, `writes/` (through `handle/core-routes.ts`: store checks, owed touches, quota relief)
 * and the background purge (`handle/core-parts.ts`). The less common calls run what `calls.ts`
 * brings, which the entry loads at the first of them (issue #44).
 */
import type { DBSchema, IDBPDatabase } from 'idb'
import { countLive, getByKey, getMany, type ReadScope } from '../reads/reads.js'
import type { DefaultTtl } from '../rules/ttl.js'
import type { Changes as WriteChanges } from '../writes/write-steps.js'
import type { Changes, Query, Stamped, StoreKey, StoreNames, StoreValue, TtlWriteTransaction, Writable } from '../rules/types.js'
import type { CoreRoutes } from '../handle/core-routes.js'
import * as writes from '../writes/writes.js'
import type { StorageStatus } from '../platform/bucket.js'

/** What the handle's less common calls run (`calls.ts`), as the entry loads it: `import()` at the first in the page entries. */
export type LoadCalls = () => Promise<Calls>
type Calls = typeof import('./calls.js')

/**
 * Either handle of a database: `idb-ttl/core`'s {@link TtlCoreDB} or `idb-ttl`'s `TtlDB`, for code
 * that takes both and uses the basic calls (`raw` is then the native database or idb's view of it).
 */
export type AnyTtlDB<S extends DBSchema | unknown = unknown> = TtlCoreDB<S, IDBDatabase | IDBPDatabase<S>>

/**
 * A database whose declared stores follow Cosmos DB time-to-live rules: the basic calls
 * (`idb-ttl/core`). {@link TtlDB}, which `idb-ttl` opens, adds live queries, transactions,
 * expiry events and the index calls.
 * @typeParam Raw what {@link raw} is: the native `IDBDatabase` in `idb-ttl/core`, idb's
 * `IDBPDatabase` in {@link TtlDB}. Code that takes either handle: {@link AnyTtlDB}.
 */
export class TtlCoreDB<S extends DBSchema | unknown = unknown, Raw extends IDBDatabase | IDBPDatabase<S> = IDBDatabase> {
  /** @internal */
  protected readonly route: CoreRoutes

  /** @internal */
  protected readonly loadCalls: LoadCalls

  /** @internal Use {@link openTtlDB}. */
  constructor(
    route: CoreRoutes,
    private readonly unfollow: () => void,
    loadCalls: LoadCalls,
  ) {
    this.route = route
    this.loadCalls = loadCalls
  }

  /**
   * The underlying database, its latest connection: the physical view, expired items and
   * bookkeeping included. In `idb-ttl/core` the native `IDBDatabase`, so that the core carries no
   * idb (`import { wrap } from 'idb'`, then `wrap(db.raw)`, gives idb's view, which {@link TtlDB}'s is).
   */
  get raw(): Raw {
    return this.route.options.connection.latest as Raw
  }

  /** Writes a value (inserting or replacing), stamping `_ts`. Resolves to its key once committed. */
  async put<N extends StoreNames<S>>(store: N, value: Writable<StoreValue<S, N>>, key?: StoreKey<S, N>): Promise<StoreKey<S, N>> {
    return this.observed(store, (tx) => tx.put(store, value, key)) ?? (await this.writeAll(store, [value], 'put', [key]))[0]
  }

  /** Writes many values in one transaction, all or nothing. Resolves to their keys. */
  async putAll<N extends StoreNames<S>>(store: N, values: readonly Writable<StoreValue<S, N>>[]): Promise<StoreKey<S, N>[]> {
    return this.observed(store, (tx) => tx.putAll(store, values)) ?? this.writeAll(store, values, 'put')
  }

  /** Inserts a value; rejects with `ConstraintError` only if a *live* item holds the key. */
  async add<N extends StoreNames<S>>(store: N, value: Writable<StoreValue<S, N>>, key?: StoreKey<S, N>): Promise<StoreKey<S, N>> {
    return this.observed(store, (tx) => tx.add(store, value, key)) ?? (await this.writeAll(store, [value], 'add', [key]))[0]
  }

  /**
   * A write of a store whose changes are recorded in their transaction (the Cosmos DB mirror's
   * outbox, {@link TtlDB}); `undefined` where the call runs on its own route (always, here).
   */
  protected observed<N extends StoreNames<S>, T>(_store: N, _write: (tx: TtlWriteTransaction<S, N>) => Promise<T>): Promise<T> | undefined {
    return undefined
  }

  private writeAll<N extends StoreNames<S>>(store: N, values: readonly unknown[], method: 'put' | 'add', keys?: readonly unknown[]) {
    const given = keys as (IDBValidKey | undefined)[] | undefined
    return this.route.write(store, (ctx) => writes.writeAll(ctx, store, values, method, given, !keys, this.loadCalls), () => [...values]) as Promise<StoreKey<S, N>[]>
  }

  /**
   * What `calls.ts` brings, loading from now, for a call on `store`, which is checked first: an
   * unknown store is refused whether or not it loads.
   * @internal
   * @throws TtlError `UNKNOWN_STORE`
   */
  protected later(store: string): Promise<Calls> {
    this.route.check(store)
    const load = this.loadCalls()
    // Awaited once the call's turn came: a failure meanwhile is the call's to report, not unhandled.
    load.catch(() => {})
    return load
  }

  /**
   * A read of `store` with what `calls.ts` brings: its turn among the store's calls taken now, its
   * transaction created once that loaded (it would end while the load awaited), on the connection
   * with owed touches written first when `settled` (as {@link CoreRoutes.settledRead}).
   * @internal
   */
  protected async readLater<T>(store: string, read: (calls: Calls, scope: ReadScope) => Promise<T>, settled = false): Promise<T> {
    const load = this.later(store)
    const connect = () => load.then(() => (settled ? this.route.settled(store) : this.route.db(store)))
    const scope = await this.route.read(store, connect)
    return read(await load, scope)
  }

  /**
   * Merges `changes` into the live item at `key` (or replaces it with what a synchronous function
   * returns) and stamps `_ts`. Resolves to the item as reads now see it.
   * @throws TtlError `NOT_FOUND` when no live item holds the key
   */
  async update<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>, changes: Changes<StoreValue<S, N>>): Promise<Stamped<StoreValue<S, N>>> {
    const inTx = this.observed(store, (tx) => tx.update(store, key, changes))
    if (inTx) return inTx
    const merge = changes as WriteChanges
    const load = this.later(store)
    // The item itself (the spare) is not given up to make room for its update.
    return this.route.write(store, async (ctx) => (await load).update(ctx, store, key as IDBValidKey, merge), (item) => [item], { store, key: key as IDBValidKey }) as Promise<Stamped<StoreValue<S, N>>>
  }

  /** Rewrites the live item at `key` unchanged, restarting its countdown. */
  async touch<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<Stamped<StoreValue<S, N>>> {
    return this.update(store, key, {})
  }

  /** The live item at `key` (or the first in a range), or `undefined`. */
  get<N extends StoreNames<S>>(store: N, query: Query<S, N>): Promise<Stamped<StoreValue<S, N>> | undefined> {
    if (query instanceof IDBKeyRange) return this.readLater(store, (calls, scope) => calls.getOne(scope, scope.store, query) as Promise<Stamped<StoreValue<S, N>>>)
    const { clock } = this.route.options
    // Not async, and on the open connection at once when there is one: the hot path pays no extra promise.
    const open = this.route.openNow(store)
    if (open) return getByKey(open, store, query, clock, this.route.reading) as Promise<Stamped<StoreValue<S, N>> | undefined>
    return this.route.inTurn(store, (db) => getByKey(db, store, query, clock, this.route.reading) as Promise<Stamped<StoreValue<S, N>> | undefined>)
  }

  /** Live items in key order, at most `count`. */
  async getAll<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, count?: number): Promise<Stamped<StoreValue<S, N>>[]> {
    return this.route.read(store).then((scope) => getMany(scope, scope.store, query, count) as Promise<Stamped<StoreValue<S, N>>[]>)
  }

  /** Keys of live items in key order, at most `count`. */
  async getAllKeys<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, count?: number): Promise<StoreKey<S, N>[]> {
    return this.readLater(store, (calls, scope) => calls.getKeys(scope, scope.store, query, count) as Promise<StoreKey<S, N>[]>, true)
  }

  /** How many live items match; counted with the expiry index, not by reading items. */
  async count<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null): Promise<number> {
    return this.route.settledRead(store).then((scope) => countLive(scope, query))
  }

  /** Deletes by key or range. Deleting an expired item is a no-op as far as reads can tell. */
  async delete<N extends StoreNames<S>>(store: N, query: Query<S, N>): Promise<void> {
    return this.observed(store, (tx) => tx.delete(store, query)) ?? this.route.change(store, (ctx) => writes.remove(ctx, store, query))
  }

  /** Deletes every item of the store. */
  async clear<N extends StoreNames<S>>(store: N): Promise<void> {
    return this.observed(store, (tx) => tx.clear(store)) ?? this.route.change(store, (ctx) => writes.clear(ctx, store))
  }

  /**
   * When the live item at `key` expires (epoch ms) under the settings now in force, watermarks
   * included; `Infinity` if it never will; `undefined` when no live item holds the key.
   */
  async expiresAt<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<number | undefined> {
    return this.readLater(store, (calls, scope) => calls.expiryOf(scope, key as IDBValidKey))
  }

  /**
   * Changes the store's default in constant time, for every connection. Items already expired stay
   * expired; `null` turns TTL off, `-1` keeps it on with no default expiry.
   * @throws TtlError `INVALID_TTL`
   */
  async setDefaultTtl<N extends StoreNames<S>>(store: N, defaultTtl: DefaultTtl): Promise<void> {
    try {
      this.route.check(store)
      // Refused before its work loads, and whether or not it does.
      writes.checkNewDefault(store, defaultTtl)
    } catch (error) {
      return this.route.explained(error)
    }
    const load = this.later(store)
    await this.route.changeSettings(store, async (ctx) => (await load).setDefaultTtl(ctx, store, defaultTtl))
  }

  /** The store's default as persisted in the database. */
  async getDefaultTtl<N extends StoreNames<S>>(store: N): Promise<DefaultTtl> {
    const load = this.later(store)
    return this.route.inTurn(store, async (db) => (await load).storedDefaultTtl(db, store), () => load.then(() => this.route.db(store)))
  }

  /**
   * Deletes what is expired now, in bounded batches (in the purge worker in `'worker'` mode);
   * resolves to how many were deleted. A failure rejects and is also reported to `onPurge`.
   */
  async purgeExpired<N extends StoreNames<S>>(store?: N): Promise<number> {
    return this.route.purgeExpired(store)
  }

  /**
   * Where the storage the database lives in stands: its Storage Bucket (`null`: the default
   * one), whether it is persisted, its usage and quota, and the calls the platform lacks for
   * them. Never throws (docs/storage.md).
   */
  async storage(): Promise<StorageStatus> {
    const { loadStorage, name } = this.route.options
    return (await loadStorage()).storageStatus(name)
  }

  /** Stops the background purge, ends the worker and closes the connection; later calls reject with TtlError `CLOSED`. */
  close(): void {
    const { parts, connection } = this.route.options
    // Pending touches are written on the closing connection, which waits for that to commit.
    parts.close()
    connection.close()
    this.unfollow()
  }
}
