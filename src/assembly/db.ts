/**
 * The handle `idb-ttl`'s `openTtlDB` returns: a table of contents. The basic calls are the
 * core's (`core-db.ts`); each method here routes to the mechanism that does the work:
 * `reads/`, `events/`, `live/`, `transaction/` (through `handle/routes.ts`), and the background
 * purge (`handle/parts.ts`); the less common ones run what `calls.ts` brings, loaded at the first.
 */
import { wrap, type DBSchema, type IDBPDatabase } from 'idb'
import { purgeDuring } from '../background/during.js'
import { TtlCoreDB, type LoadCalls } from './core-db.js'
import type { ExpireEvent, ExpireOptions } from '../events/listeners.js'
import type { PurgeReport } from '../events/reports.js'
import { getMany, type StoreStats } from '../reads/reads.js'
import { countIndexed, userIndex } from '../reads/index-reads.js'
import type { StaleEntry, StaleItem } from '../reads/stale.js'
import type { IndexNames, IndexQuery, LostReport, Query, Stamped, StoreKey, StoreNames, StoreValue, TtlReadTransaction, TtlWriteTransaction } from '../rules/types.js'
import { checkTransaction } from '../transaction/check.js'
import type { Transaction } from '../transaction/transaction.js'
import type { Routes } from '../handle/routes.js'
import { register } from '../handle/internal.js'
import type { LiveQuery } from '../live/query.js'
import type { LiveOptions } from '../live/result.js'

/**
 * A database whose declared stores follow Cosmos DB time-to-live rules: the basic calls of
 * {@link TtlCoreDB}, and live queries, transactions, expiry events and the index calls.
 */
export class TtlDB<S extends DBSchema | unknown = unknown> extends TtlCoreDB<S, IDBPDatabase<S>> {
  /** @internal */
  protected declare readonly route: Routes
  /**
   * The database the browser took since this origin last had it open, as `onLost` was told at
   * this open; `undefined` when none was found, or without `onLost` (docs/storage.md).
   */
  readonly lost: LostReport | undefined = undefined

  /** @internal Use {@link openTtlDB}. */
  constructor(route: Routes, unfollow: () => void, loadCalls: LoadCalls) {
    super(route, unfollow, loadCalls)
    register(this, route, loadCalls)
  }

  /**
   * The underlying idb database: idb's view of the latest connection (the same object each time
   * for one connection), the physical view, expired items and bookkeeping included.
   */
  override get raw(): IDBPDatabase<S> {
    return wrap(this.route.options.connection.latest) as IDBPDatabase<S>
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

  /**
   * Runs `callback` in one IndexedDB transaction over `stores`: the handle's reads (and, in
   * `'readwrite'`, writes) with every TTL rule, at one instant, all or nothing (SPEC §11).
   * Resolves to the callback's result once committed; listeners hear of it after the commit.
   * The callback must await only `tx`'s calls: IndexedDB ends a transaction left idle.
   * @throws TtlError `UNKNOWN_STORE`, `TRANSACTION_INACTIVE`, `UNSUPPORTED` (an `evictOnQuota`
   * store, or one that another handle gave generations), `INVALID_OPTION` (no stores, or a mode other than `'readonly'`/`'readwrite'`)
   */
  transaction<N extends StoreNames<S>, T>(stores: N | readonly N[], mode: 'readonly', callback: (tx: TtlReadTransaction<S, N>) => T | Promise<T>): Promise<T>
  transaction<N extends StoreNames<S>, T>(stores: N | readonly N[], mode: 'readwrite', callback: (tx: TtlWriteTransaction<S, N>) => T | Promise<T>): Promise<T>
  async transaction<N extends StoreNames<S>, T>(stores: N | readonly N[], mode: 'readonly' | 'readwrite', callback: (tx: TtlWriteTransaction<S, N>) => T | Promise<T>): Promise<T> {
    let names: string[]
    try {
      names = checkTransaction(stores, mode, callback)
    } catch (error) {
      return this.route.explained(error)
    }
    return this.route.transact(names, mode === 'readwrite', callback as unknown as (tx: Transaction) => T)
  }

  /** A write of a store whose changes are recorded in their transaction (the Cosmos DB mirror's outbox); `undefined` elsewhere. */
  protected override observed<N extends StoreNames<S>, T>(store: N, write: (tx: TtlWriteTransaction<S, N>) => Promise<T>): Promise<T> | undefined {
    if (this.route.observers.of(store).length === 0) return undefined
    return this.route.spacious(() => this.transaction([store], 'readwrite', write))
  }

  /**
   * Iterates the live items in key order, `pageSize` per transaction, so the loop body may await
   * anything; writes made meanwhile may or may not be seen, as with any paged read.
   */
  async *iterate<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, pageSize = 100): AsyncGenerator<Stamped<StoreValue<S, N>>, void> {
    const load = this.later(store)
    // The first page's read takes its turn at the first `next()`, before `pages` has loaded.
    const first = this.route.read(store, () => load.then(() => this.route.db(store)))
    first.catch(() => {})
    const { pages } = await load
    const unread = [first]
    for await (const page of pages(() => unread.pop() ?? this.route.read(store), query, pageSize)) yield* page as Stamped<StoreValue<S, N>>[]
  }

  /** The first live item whose index key matches, or `undefined`. */
  async getFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query: IndexQuery<S, N, I>): Promise<Stamped<StoreValue<S, N>> | undefined> {
    return this.readLater(store, (calls, scope) => calls.getOne(scope, userIndex(scope, index), query) as Promise<Stamped<StoreValue<S, N>> | undefined>)
  }

  /** Live items by index order, at most `count`. */
  async getAllFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query?: IndexQuery<S, N, I> | null, count?: number): Promise<Stamped<StoreValue<S, N>>[]> {
    return this.route.read(store).then((scope) => getMany(scope, userIndex(scope, index), query, count) as Promise<Stamped<StoreValue<S, N>>[]>)
  }

  /** Primary keys of live items by index order, at most `count`. */
  async getAllKeysFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query?: IndexQuery<S, N, I> | null, count?: number): Promise<StoreKey<S, N>[]> {
    return this.readLater(store, (calls, scope) => calls.getKeys(scope, userIndex(scope, index), query, count) as Promise<StoreKey<S, N>[]>, true)
  }

  /** How many index entries of live items match. */
  async countFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(store: N, index: I, query?: IndexQuery<S, N, I> | null): Promise<number> {
    return this.route.settledRead(store).then((scope) => countIndexed(scope, userIndex(scope, index), query))
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
   * The item at `key` if it has expired and its store's grace (`keepExpired`) has not ended: its
   * value and when it expired (epoch ms); `undefined` for a live item, no item, or a store without
   * a grace. Every other read hides such an item; this one never brings it back (docs/stale.md).
   * @throws TtlError `UNKNOWN_STORE`
   */
  async getStale<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<StaleItem<Stamped<StoreValue<S, N>>> | undefined> {
    // Loaded before the read opens its transaction, which would end while the load awaits; the
    // read takes its turn among the store's calls now, not once loaded.
    this.route.check(store)
    const load = this.route.loads.stale()
    const scope = await this.route.read(store, () => load.then(() => this.route.db(store)))
    return (await load).getStale(scope, key) as Promise<StaleItem<Stamped<StoreValue<S, N>>> | undefined>
  }

  /**
   * The expired items of `store` still within its grace (`keepExpired`) whose key is in `query`
   * (every one without), in key order, each with its key, value and when it expired (epoch ms).
   * @throws TtlError `UNKNOWN_STORE`
   */
  async getAllStale<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null): Promise<StaleEntry<StoreKey<S, N>, Stamped<StoreValue<S, N>>>[]> {
    this.route.check(store)
    const load = this.route.loads.stale()
    const scope = await this.route.read(store, () => load.then(() => this.route.db(store)))
    return (await load).getAllStale(scope, query) as Promise<StaleEntry<StoreKey<S, N>, Stamped<StoreValue<S, N>>>[]>
  }

  /** Live items, expired items not yet purged, and the next expiry, from the expiry index alone. */
  async stats<N extends StoreNames<S>>(store: N): Promise<StoreStats> {
    return this.readLater(store, (calls, scope) => calls.stats(scope), true)
  }

  /**
   * Purges inside a service worker's event, kept alive for it with `event.waitUntil`: slices until
   * nothing is due or `budgetMs` is spent, if this connection is the purger (docs/service-workers.md).
   * @throws TtlError `INVALID_OPTION` (as a rejection, nothing purged) for anything but an event whose
   * `waitUntil` takes the purge (one whose dispatch is over refuses it), or a budget that is not a positive number of ms
   */
  purgeDuring(event: { waitUntil(promise: Promise<unknown>): void }, budgetMs = 10_000): Promise<void> {
    return purgeDuring(this.route.open.background, event, budgetMs, this.route.loads.during)
  }
}
