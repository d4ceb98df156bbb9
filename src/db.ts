/**
 * The handle `openTtlDB` returns: a table of contents. Each method routes to the mechanism that
 * does the work: `reads/`, `writes/` (through `handle/routes.ts`: store checks, owed touches,
 * quota relief), `events/`, `live/`, and the background purge (`handle/parts.ts`).
 */
import { unwrap, type DBSchema, type IDBPDatabase } from 'idb'
import type { ExpireEvent, ExpireOptions } from './events/listeners.js'
import type { PurgeReport } from './events/reports.js'
import { countLive, getByKey, getKeys, getMany, getOne, pages, stats, storedDefaultTtl, type StoreStats } from './reads/reads.js'
import type { DefaultTtl } from './rules/ttl.js'
import type { Changes, IndexNames, IndexQuery, Query, Stamped, StoreKey, StoreNames, StoreValue, TtlReadTransaction, TtlWriteTransaction, Writable } from './rules/types.js'
import { checkTransaction } from './transaction/check.js'
import type { Transaction } from './transaction/transaction.js'
import type { Routes } from './handle/routes.js'
import { register } from './handle/internal.js'
import type { LiveQuery } from './live/query.js'
import type { LiveOptions } from './live/result.js'
import * as writes from './writes/writes.js'

/** A database whose declared stores follow Cosmos DB time-to-live rules. */
export class TtlDB<S extends DBSchema | unknown = unknown> {
  /** @internal Use {@link openTtlDB}. */
  constructor(
    private readonly route: Routes,
    private readonly unfollow: () => void,
  ) {
    register(this, route)
  }

  /**
   * Calls `listener` with the items that expired or were evicted, once per deletion, after the
   * deleting transaction committed, in every tab that listens (docs/lifetimes-and-events.md).
   * Deletions by `delete` and `clear` are not reported. Returns a function that removes it.
   */
  onExpire(listener: (event: ExpireEvent) => void, options?: ExpireOptions): () => void {
    return this.route.open.expiry.add(listener, options)
  }

  /** Calls `listener` after every purge that deleted something, and on every background failure. */
  onPurge(listener: (report: PurgeReport) => void): () => void {
    return this.route.open.reports.add(listener)
  }

  /** Whether this connection is, right now, the one purging in the background (it holds the database's Web Lock). */
  get isPurger(): boolean {
    return this.route.options.parts.background.isPurger
  }

  /** The underlying idb database: the physical view, expired items and bookkeeping included. */
  get raw(): IDBPDatabase<S> {
    return this.route.options.connection.raw as IDBPDatabase<S>
  }

  /**
   * Runs `callback` in one IndexedDB transaction over `stores`: the handle's reads (and, in
   * `'readwrite'`, writes) with every TTL rule, at one instant, all or nothing (SPEC §11).
   * Resolves to the callback's result once committed; listeners hear of it after the commit.
   * The callback must await only `tx`'s calls: IndexedDB ends a transaction left idle.
   * @throws TtlError `UNKNOWN_STORE`, `TRANSACTION_INACTIVE`, `UNSUPPORTED` (an `evictOnQuota`
   * store), `INVALID_OPTION` (no stores, or a mode other than `'readonly'`/`'readwrite'`)
   */
  transaction<N extends StoreNames<S>, T>(stores: N | readonly N[], mode: 'readonly', callback: (tx: TtlReadTransaction<S, N>) => T | Promise<T>): Promise<T>
  transaction<N extends StoreNames<S>, T>(stores: N | readonly N[], mode: 'readwrite', callback: (tx: TtlWriteTransaction<S, N>) => T | Promise<T>): Promise<T>
  async transaction<N extends StoreNames<S>, T>(stores: N | readonly N[], mode: 'readonly' | 'readwrite', callback: (tx: TtlWriteTransaction<S, N>) => T | Promise<T>): Promise<T> {
    const names = checkTransaction(stores, mode, callback)
    return this.route.transact(names, mode === 'readwrite', callback as unknown as (tx: Transaction) => T)
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

  /** A write of a store whose changes are recorded in their transaction (the Cosmos DB mirror's outbox); `undefined` elsewhere. */
  private observed<N extends StoreNames<S>, T>(store: N, write: (tx: TtlWriteTransaction<S, N>) => Promise<T>): Promise<T> | undefined {
    if (this.route.observers.of(store).length === 0) return undefined
    return this.route.spacious(() => this.transaction([store], 'readwrite', write))
  }

  private writeAll<N extends StoreNames<S>>(store: N, values: readonly unknown[], method: 'put' | 'add', keys?: readonly unknown[]) {
    const given = keys as (IDBValidKey | undefined)[] | undefined
    return this.route.write(store, (ctx) => writes.writeAll(ctx, store, values, method, given, !keys), () => [...values]) as Promise<StoreKey<S, N>[]>
  }

  /**
   * Merges `changes` into the live item at `key` (or replaces it with what a synchronous function
   * returns) and stamps `_ts`. Resolves to the item as reads now see it.
   * @throws TtlError `NOT_FOUND` when no live item holds the key
   */
  async update<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>, changes: Changes<StoreValue<S, N>>): Promise<Stamped<StoreValue<S, N>>> {
    const inTx = this.observed(store, (tx) => tx.update(store, key, changes))
    if (inTx) return inTx
    const merge = changes as Parameters<typeof writes.update>[3]
    // The item itself (the spare) is not given up to make room for its update.
    return this.route.write(store, (ctx) => writes.update(ctx, store, key as IDBValidKey, merge), (item) => [item], { store, key: key as IDBValidKey }) as Promise<Stamped<StoreValue<S, N>>>
  }

  /** Rewrites the live item at `key` unchanged, restarting its countdown. */
  async touch<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<Stamped<StoreValue<S, N>>> {
    return this.update(store, key, {})
  }

  /** The live item at `key` (or the first in a range), or `undefined`. */
  async get<N extends StoreNames<S>>(store: N, query: Query<S, N>): Promise<Stamped<StoreValue<S, N>> | undefined> {
    if (query instanceof IDBKeyRange) return this.route.read(store).then((scope) => getOne(scope, scope.store, query) as Promise<Stamped<StoreValue<S, N>>>)
    const { clock, parts } = this.route.options
    return getByKey(await this.route.db(store), store, query, clock, parts.touches) as Promise<Stamped<StoreValue<S, N>> | undefined>
  }

  /** Live items in key order, at most `count`. */
  async getAll<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, count?: number): Promise<Stamped<StoreValue<S, N>>[]> {
    return this.route.read(store).then((scope) => getMany(scope, scope.store, query, count) as Promise<Stamped<StoreValue<S, N>>[]>)
  }

  /** Keys of live items in key order, at most `count`. */
  async getAllKeys<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, count?: number): Promise<StoreKey<S, N>[]> {
    return this.route.settledRead(store).then((scope) => getKeys(scope, scope.store, query, count) as Promise<StoreKey<S, N>[]>)
  }

  /** How many live items match; counted with the expiry index, not by reading items. */
  async count<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null): Promise<number> {
    return this.route.settledRead(store).then((scope) => countLive(scope, scope.store, query))
  }

  /**
   * Iterates the live items in key order, `pageSize` per transaction, so the loop body may await
   * anything; writes made meanwhile may or may not be seen, as with any paged read.
   */
  async *iterate<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, pageSize = 100): AsyncGenerator<Stamped<StoreValue<S, N>>, void> {
    for await (const page of pages(() => this.route.read(store), query, pageSize)) yield* page as Stamped<StoreValue<S, N>>[]
  }

  /** Deletes by key or range. Deleting an expired item is a no-op as far as reads can tell. */
  async delete<N extends StoreNames<S>>(store: N, query: Query<S, N>): Promise<void> {
    return this.observed(store, (tx) => tx.delete(store, query)) ?? this.route.change(store, (ctx) => writes.remove(ctx, store, query))
  }

  /** Deletes every item of the store. */
  async clear<N extends StoreNames<S>>(store: N): Promise<void> {
    return this.observed(store, (tx) => tx.clear(store)) ?? this.route.change(store, (ctx) => writes.clear(ctx, store))
  }

  /** The first live item whose index key matches, or `undefined`. */
  async getFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query: IndexQuery<S, N, I>): Promise<Stamped<StoreValue<S, N>> | undefined> {
    return this.route.read(store).then((scope) => getOne(scope, scope.index(index), query) as Promise<Stamped<StoreValue<S, N>> | undefined>)
  }

  /** Live items by index order, at most `count`. */
  async getAllFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query?: IndexQuery<S, N, I> | null, count?: number): Promise<Stamped<StoreValue<S, N>>[]> {
    return this.route.read(store).then((scope) => getMany(scope, scope.index(index), query, count) as Promise<Stamped<StoreValue<S, N>>[]>)
  }

  /** Primary keys of live items by index order, at most `count`. */
  async getAllKeysFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query?: IndexQuery<S, N, I> | null, count?: number): Promise<StoreKey<S, N>[]> {
    return this.route.settledRead(store).then((scope) => getKeys(scope, scope.index(index), query, count) as Promise<StoreKey<S, N>[]>)
  }

  /** How many index entries of live items match. */
  async countFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query?: IndexQuery<S, N, I> | null): Promise<number> {
    return this.route.settledRead(store).then((scope) => countLive(scope, scope.index(index), query))
  }

  /**
   * A live query: the live items `getAll` (with `index`, `getAllFromIndex`) returns for these
   * options, emitted once at subscription and again whenever they change — after a committed
   * change in any tab or worker, and at the instant one of them expires (docs/live-queries.md).
   * @throws TtlError `UNKNOWN_STORE`, `INVALID_OPTION`; `CLOSED` after {@link close}
   */
  live<N extends StoreNames<S>, I extends IndexNames<S, N> = never>(
    store: N,
    options?: LiveOptions<[I] extends [never] ? Query<S, N> : IndexQuery<S, N, I>> & { index?: I },
  ): LiveQuery<Stamped<StoreValue<S, N>>> {
    const { live } = this.route.open
    this.route.check(store)
    return live.query(store, () => this.route.db(store), options as LiveOptions)
  }

  /**
   * When the live item at `key` expires (epoch ms) under the settings now in force, watermarks
   * included; `Infinity` if it never will; `undefined` when no live item holds the key.
   */
  async expiresAt<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<number | undefined> {
    return (await this.route.read(store)).expiryOf(key as IDBValidKey)
  }

  /** Live items, expired items not yet purged, and the next expiry, from the expiry index alone. */
  async stats<N extends StoreNames<S>>(store: N): Promise<StoreStats> {
    return stats(await this.route.settledRead(store))
  }

  /**
   * Changes the store's default in constant time, for every connection. Items already expired stay
   * expired; `null` turns TTL off, `-1` keeps it on with no default expiry.
   * @throws TtlError `INVALID_TTL`
   */
  async setDefaultTtl<N extends StoreNames<S>>(store: N, defaultTtl: DefaultTtl): Promise<void> {
    await this.route.changeSettings(store, (ctx) => writes.setDefaultTtl(ctx, store, defaultTtl))
  }

  /** The store's default as persisted in the database. */
  async getDefaultTtl<N extends StoreNames<S>>(store: N): Promise<DefaultTtl> {
    return storedDefaultTtl(await this.route.db(store), store)
  }

  /**
   * Deletes what is expired now, in bounded batches (in the purge worker in `'worker'` mode);
   * resolves to how many were deleted. A failure rejects and is also reported to `onPurge`.
   */
  async purgeExpired<N extends StoreNames<S>>(store?: N): Promise<number> {
    return this.route.purgeExpired(store)
  }

  /**
   * Purges inside a service worker's event, kept alive for it with `event.waitUntil`: slices until
   * nothing is due or `budgetMs` is spent, if this connection is the purger (docs/service-workers.md).
   * @throws TtlError `INVALID_OPTION` (as a rejection, nothing purged) for anything but an event whose
   * `waitUntil` takes the purge (one whose dispatch is over refuses it), or a budget that is not a positive number of ms
   */
  purgeDuring(event: { waitUntil(promise: Promise<unknown>): void }, budgetMs = 10_000): Promise<void> {
    return this.route.open.background.during(event, budgetMs)
  }

  /** Stops the background purge, ends the worker and closes the connection; later calls reject with TtlError `CLOSED`. */
  close(): void {
    const { parts, connection } = this.route.options
    // Pending touches are written on the closing connection, which waits for that to commit.
    parts.close(connection.isOpen ? unwrap(connection.raw) : undefined)
    connection.close()
    this.unfollow()
  }
}
