/**
 * `openTtlDB` and the handle it returns: one connection, the declared stores, and every
 * operation routed to the reads, writes and purge modules.
 */
import { unwrap, type DBSchema, type IDBPDatabase } from 'idb'
import { hearRequests, requestStarting, UserActivity } from './background/activity.js'
import type { Background } from './background/background.js'
import { Connection } from './layout/connection.js'
import { describeError, TtlError } from './rules/errors.js'
import { META_STORE } from './layout/expiry-index.js'
import { monotonic } from './rules/clock.js'
import { follow } from './layout/watermarks.js'
import { ExpiryListeners, publish, type ExpireEvent, type ExpireOptions } from './events/listeners.js'
import { checkPurgeOptions } from './rules/purge-options.js'
import type { PurgeReport } from './purge/purge.js'
import type { Spare } from './purge/quota.js'
import type { Touches } from './reads/touch.js'
import { countLive, getByKey, getKeys, getMany, getOne, pages, ReadScope, stats, type StoreStats } from './reads/reads.js'
import { req } from './platform/request.js'
import { applyDeclaredDefaults, checkStoreConfigs, type StoreConfigs } from './layout/schema.js'
import type { DefaultTtl, TtlValues } from './rules/ttl.js'
import type {
  IndexNames,
  IndexQuery,
  OpenTtlDBOptions,
  PurgeOptions,
  Query,
  Stamped,
  StoreKey,
  StoreNames,
  StoreValue,
  Writable,
} from './rules/types.js'
import type { WriteContext, Written } from './writes/writes.js'
import type { StoreState } from './rules/policy.js'

type Changes<T> = Partial<Writable<T>> | ((item: Stamped<T>) => Writable<T>)
type Deferred = typeof import('./deferred.js')

/** What a handle runs on once its deferred code has loaded (see `deferred.ts`). */
interface Parts {
  code: Deferred
  background: Background
  touches: Touches
}

/** A database whose declared stores follow Cosmos DB time-to-live rules. */
export class TtlDB<S extends DBSchema | unknown = unknown> {
  private readonly name: string
  private readonly connection: Connection
  private readonly stores: StoreConfigs
  private readonly clock: () => number
  private readonly mode: TtlValues
  private readonly durability: IDBTransactionDurability | undefined
  private readonly activity = new UserActivity()
  private readonly listeners = new Set<(report: PurgeReport) => void>()
  /**
   * In the first chunk, not the deferred one: a listener's presence (what makes any tab's purge
   * read values) and its channel must exist from `onExpire` on, not from when code has loaded.
   */
  private readonly expiry: ExpiryListeners
  /** Resolves once the deferred code has loaded and this handle's background is running. */
  private readonly ready: Promise<Parts>
  private parts: Parts | undefined
  private readonly unhear: () => void
  private closed = false

  /** @internal Use {@link openTtlDB}. */
  constructor(
    name: string,
    connection: Connection,
    options: OpenTtlDBOptions<S>,
    stores: StoreConfigs,
    purge: Required<PurgeOptions>,
    private readonly unfollow: () => void,
    deferred: Deferred | Promise<Deferred>,
  ) {
    this.name = name
    this.connection = connection
    this.stores = stores
    this.clock = options.clock ?? Date.now
    this.mode = options.ttlValues ?? 'strict'
    this.durability = options.durability
    this.expiry = new ExpiryListeners(name)
    this.unhear = hearRequests(() => {
      this.activity.note()
      this.parts?.background.purger.noteActivity?.()
    })
    const attach = (code: Deferred) => (this.parts = this.assemble(code, purge))
    this.ready = deferred instanceof Promise ? deferred.then(attach) : Promise.resolve(attach(deferred))
    // A chunk that fails to load fails the calls that need it, each with the loader's error; the
    // background purge never starts, which onPurge hears once.
    this.ready.catch((error: unknown) => this.closed || this.reportFailure(error))
  }

  private assemble(code: Deferred, purge: Required<PurgeOptions>): Parts {
    if (this.closed) throw new TtlError('CLOSED', 'the database handle was closed')
    const { name, stores, connection } = this
    const sliding = Object.entries(stores).filter(([, config]) => config.touchOnRead)
    const connect = () => connection.native()
    return {
      code,
      touches: new code.Touches(name, connect, new Map(sliding.map(([store, config]) => [store, config.keyPath!])), (error) =>
        this.reportFailure(error),
      ),
      background: new code.Background({
        name,
        stores,
        purge,
        clock: this.clock,
        connect,
        activity: this.activity,
        onReport: (report) => this.emit(report),
      }),
    }
  }

  private emit(report: PurgeReport): void {
    for (const listener of this.listeners) {
      try {
        listener(report)
      } catch {
        // A listener's own error must not stop the purge or fail the request that purged.
      }
    }
  }

  /** Reports a failure in the background (a lost batch of touches, say) to `onPurge` listeners. */
  private reportFailure(error: unknown): void {
    this.emit({ store: '*', deleted: 0, durationMs: 0, more: false, nextExpiryMs: NaN, error: describeError(error) })
  }

  /**
   * Calls `listener` with the items that expired, once per deletion, after the transaction that
   * deleted them committed — in every tab of the database that listens, wherever the purge
   * ran. `options.stores` keeps the events of those stores only. Deletions by `delete` and
   * `clear` are not reported. While someone listens, the purge reads the values it deletes.
   * Returns a function that removes the listener.
   */
  onExpire(listener: (event: ExpireEvent) => void, options?: ExpireOptions): () => void {
    if (this.closed) throw new TtlError('CLOSED', 'the database handle was closed')
    return this.expiry.add(listener, options)
  }

  /**
   * Calls `listener` after every purge that deleted something, and on every purge failure
   * (`report.error`). Returns a function that removes the listener.
   */
  onPurge(listener: (report: PurgeReport) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /**
   * Whether this connection is, right now, the one purging the database in the background: it
   * holds the database's Web Lock. It is `false` when `openTtlDB` resolves — the lock is asked
   * for then and granted a moment later — and turns `true` soon after in one tab only, unless
   * another tab already holds the lock. It turns `false` again while the tab gives the lock up
   * (frozen, in the back/forward cache, hidden with another tab waiting, after a failed slice)
   * and after `close()`. Always `false` with `purge.mode: 'off'`; `true` soon after open where there
   * are no Web Locks (every connection purges). To see the purge work, listen with `onPurge`.
   */
  get isPurger(): boolean {
    return this.parts?.background.isPurger ?? false
  }

  /** The underlying idb database: the physical view, expired items and bookkeeping included. */
  get raw(): IDBPDatabase<S> {
    return this.connection.raw as IDBPDatabase<S>
  }

  private check(store: string): void {
    if (!Object.hasOwn(this.stores, store)) {
      const declared = Object.keys(this.stores).map((name) => `"${name}"`).join(', ') || 'none'
      throw new TtlError('UNKNOWN_STORE', `"${String(store)}" is not a store declared in openTtlDB (declared: ${declared})`)
    }
  }

  /** The connection for a request on `store`, which the purge lets go first. */
  private async db(store: string): Promise<IDBDatabase> {
    this.check(store)
    requestStarting()
    return this.connection.native()
  }

  private async read(store: string): Promise<ReadScope> {
    return new ReadScope(await this.db(store), store, this.clock, this.parts?.touches)
  }

  /**
   * The connection for work that judges `store` by what is on disk (counts, keys, writes,
   * purges): the touches that any handle of this page owes the store are written first.
   */
  private async settled(store: string): Promise<IDBDatabase> {
    this.check(store)
    // Code that failed to load failed for every handle of the page: nobody owes touches then.
    const parts = await this.ready.catch(() => undefined)
    await parts?.code.settleTouches(this.name, store)
    // Asked for last: an upgrade elsewhere may close the connection while the code loads.
    return this.db(store)
  }

  private async settledRead(store: string): Promise<ReadScope> {
    return new ReadScope(await this.settled(store), store, this.clock, this.parts?.touches)
  }

  private async writer(store: string): Promise<WriteContext> {
    return { db: await this.settled(store), clock: this.clock, mode: this.mode, durability: this.durability, keepTs: this.stores[store].keepTs }
  }

  /**
   * Runs a write; if the disk is full, purges, evicts from the stores with `evictOnQuota`, and
   * runs it again (SPEC §9, `quota.ts`).
   */
  private async spacious<T>(attempt: () => Promise<T>, spare?: Spare): Promise<T> {
    const { withQuotaRelief, evictRound, storageUsage, dropGenerationsOf } = (await this.ready).code
    return withQuotaRelief(attempt, {
      purgeExpired: () => this.purgeExpired(),
      evictShare: () => {
        const opted = Object.keys(this.stores).filter((name) => this.stores[name].evictOnQuota)
        return evictRound(this.name, opted, (store) => this.settled(store), this.clock(), (report) => this.emit(report), spare)
      },
      dropGenerations: async () => dropGenerationsOf(await this.connection.native(), Object.keys(this.stores)),
      usage: storageUsage,
    })
  }

  /** Reports dead items a write deleted to make room for itself (see `claim.ts`). */
  private claimed<T>(store: string, written: Written<T>): T {
    const items = written.claimed
    if (items.length > 0) {
      this.emit({ store, deleted: items.length, durationMs: 0, more: false, nextExpiryMs: NaN })
      publish(this.name, { store, reason: 'expired', items })
    }
    return written.result
  }

  private async writeAll(
    store: string,
    values: readonly unknown[],
    method: 'put' | 'add',
    keys?: readonly (IDBValidKey | undefined)[],
  ): Promise<IDBValidKey[]> {
    const { code, background } = await this.ready
    const attempt = async () => code.writes.writeAll(await this.writer(store), store, values, method, keys, !keys)
    const written = this.claimed(store, await this.spacious(attempt))
    background.wrote(store, values)
    return written
  }

  /** Writes a value (inserting or replacing), stamping `_ts`. Resolves to its key once committed. */
  async put<N extends StoreNames<S>>(store: N, value: Writable<StoreValue<S, N>>, key?: StoreKey<S, N>): Promise<StoreKey<S, N>> {
    const [written] = await this.writeAll(store, [value], 'put', [key])
    return written as StoreKey<S, N>
  }

  /** Writes many values in one transaction, all or nothing. Resolves to their keys. */
  async putAll<N extends StoreNames<S>>(store: N, values: readonly Writable<StoreValue<S, N>>[]): Promise<StoreKey<S, N>[]> {
    return (await this.writeAll(store, values, 'put')) as StoreKey<S, N>[]
  }

  /** Inserts a value; rejects with `ConstraintError` only if a *live* item holds the key. */
  async add<N extends StoreNames<S>>(store: N, value: Writable<StoreValue<S, N>>, key?: StoreKey<S, N>): Promise<StoreKey<S, N>> {
    const [written] = await this.writeAll(store, [value], 'add', [key])
    return written as StoreKey<S, N>
  }

  /**
   * Merges `changes` into the live item at `key` (or replaces it with what a synchronous
   * function returns) and stamps `_ts`. Resolves to the item as reads now see it.
   * @throws TtlError `NOT_FOUND` when no live item holds the key
   */
  async update<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>, changes: Changes<StoreValue<S, N>>): Promise<Stamped<StoreValue<S, N>>> {
    const { code, background } = await this.ready
    const { update } = code.writes
    const attempt = async () => update(await this.writer(store), store, key, changes as Parameters<typeof update>[3])
    // The item itself is not given up to make room for its update.
    const item = this.claimed(store, await this.spacious(attempt, { store, key }))
    background.wrote(store, [item])
    return item as Stamped<StoreValue<S, N>>
  }

  /** Rewrites the live item at `key` unchanged, restarting its countdown. */
  async touch<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<Stamped<StoreValue<S, N>>> {
    return this.update(store, key, {})
  }

  /** The live item at `key` (or the first in a range), or `undefined`. */
  async get<N extends StoreNames<S>>(store: N, query: Query<S, N>): Promise<Stamped<StoreValue<S, N>> | undefined> {
    if (!(query instanceof IDBKeyRange)) {
      return getByKey(await this.db(store), store, query, this.clock, this.parts?.touches) as Promise<Stamped<StoreValue<S, N>> | undefined>
    }
    const scope = await this.read(store)
    return getOne(scope, scope.store, query) as Promise<Stamped<StoreValue<S, N>> | undefined>
  }

  /** Live items in key order, at most `count`. */
  async getAll<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, count?: number): Promise<Stamped<StoreValue<S, N>>[]> {
    const scope = await this.read(store)
    return getMany(scope, scope.store, query, count) as Promise<Stamped<StoreValue<S, N>>[]>
  }

  /** Keys of live items in key order, at most `count`. */
  async getAllKeys<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null, count?: number): Promise<StoreKey<S, N>[]> {
    const scope = await this.settledRead(store)
    return getKeys(scope, scope.store, query, count) as Promise<StoreKey<S, N>[]>
  }

  /** How many live items match; counted with the expiry index, not by reading items. */
  async count<N extends StoreNames<S>>(store: N, query?: Query<S, N> | null): Promise<number> {
    const scope = await this.settledRead(store)
    return countLive(scope, scope.store, query)
  }

  /**
   * Iterates the live items in key order. Items are read `pageSize` at a time, each page in its
   * own transaction, so the loop body may await anything; writes made meanwhile may or may not
   * be seen, as with any paged read.
   */
  async *iterate<N extends StoreNames<S>>(
    store: N,
    query?: Query<S, N> | null,
    pageSize = 100,
  ): AsyncGenerator<Stamped<StoreValue<S, N>>, void> {
    for await (const page of pages(() => this.read(store), query, pageSize)) {
      yield* page as Stamped<StoreValue<S, N>>[]
    }
  }

  /** Deletes by key or range. Deleting an expired item is a no-op as far as reads can tell. */
  async delete<N extends StoreNames<S>>(store: N, query: Query<S, N>): Promise<void> {
    const { writes } = (await this.ready).code
    return writes.remove(await this.writer(store), store, query)
  }

  /** Deletes every item of the store. */
  async clear<N extends StoreNames<S>>(store: N): Promise<void> {
    const { writes } = (await this.ready).code
    return writes.clear(await this.writer(store), store)
  }

  /** The first live item whose index key matches, or `undefined`. */
  async getFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(
    store: N,
    index: I,
    query: IndexQuery<S, N, I>,
  ): Promise<Stamped<StoreValue<S, N>> | undefined> {
    const scope = await this.read(store)
    return getOne(scope, scope.index(index), query) as Promise<Stamped<StoreValue<S, N>> | undefined>
  }

  /** Live items by index order, at most `count`. */
  async getAllFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(
    store: N,
    index: I,
    query?: IndexQuery<S, N, I> | null,
    count?: number,
  ): Promise<Stamped<StoreValue<S, N>>[]> {
    const scope = await this.read(store)
    return getMany(scope, scope.index(index), query, count) as Promise<Stamped<StoreValue<S, N>>[]>
  }

  /** Primary keys of live items by index order, at most `count`. */
  async getAllKeysFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(
    store: N,
    index: I,
    query?: IndexQuery<S, N, I> | null,
    count?: number,
  ): Promise<StoreKey<S, N>[]> {
    const scope = await this.settledRead(store)
    return getKeys(scope, scope.index(index), query, count) as Promise<StoreKey<S, N>[]>
  }

  /** How many index entries of live items match. */
  async countFromIndex<N extends StoreNames<S>, I extends IndexNames<S, N>>(
    store: N,
    index: I,
    query?: IndexQuery<S, N, I> | null,
  ): Promise<number> {
    const scope = await this.settledRead(store)
    return countLive(scope, scope.index(index), query)
  }

  /**
   * When the live item at `key` expires (epoch ms) under the settings now in force, watermarks
   * included; `Infinity` if it never will; `undefined` when no live item holds the key (Redis
   * `PTTL`).
   */
  async expiresAt<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<number | undefined> {
    return (await this.read(store)).expiryOf(key)
  }

  /**
   * Live items, expired items not yet purged, and when the next live item expires (`Infinity`:
   * none will), from the expiry index without reading items: cheap enough to poll.
   */
  async stats<N extends StoreNames<S>>(store: N): Promise<StoreStats> {
    return stats(await this.settledRead(store))
  }

  /**
   * Changes the store's default in constant time, for every connection. Items already expired
   * stay expired; `null` turns TTL off for the store, `-1` keeps it on with no default expiry.
   * @throws TtlError `INVALID_TTL`
   */
  async setDefaultTtl<N extends StoreNames<S>>(store: N, defaultTtl: DefaultTtl): Promise<void> {
    const { code, background } = await this.ready
    await code.writes.setDefaultTtl(await this.writer(store), store, defaultTtl)
    background.due(store)
  }

  /** The store's default as persisted in the database. */
  async getDefaultTtl<N extends StoreNames<S>>(store: N): Promise<DefaultTtl> {
    const db = await this.db(store)
    const state: StoreState = await req(db.transaction(META_STORE).objectStore(META_STORE).get(store))
    return state.defaultTtl
  }

  /**
   * Deletes what is expired now, in bounded batches (in the purge worker in `'worker'` mode);
   * resolves to how many were deleted. A failure rejects and is also reported to `onPurge`.
   */
  async purgeExpired<N extends StoreNames<S>>(store?: N): Promise<number> {
    const names = store === undefined ? Object.keys(this.stores) : [store]
    names.forEach((name) => this.check(name))
    await Promise.all(names.map((name) => this.settled(name)))
    const { background } = await this.ready
    const started = performance.now()
    const report = { store: store ?? '*', deleted: 0, more: false, nextExpiryMs: NaN }
    try {
      report.deleted = await background.purger.purgeAll(names, this.clock())
    } catch (error) {
      if (!this.closed) this.emit({ ...report, durationMs: performance.now() - started, error: describeError(error) })
      throw error
    }
    if (report.deleted > 0) this.emit({ ...report, durationMs: performance.now() - started })
    return report.deleted
  }

  /** Stops the background purge, ends the worker and closes the connection; later calls reject with TtlError `CLOSED`. */
  close(): void {
    this.closed = true
    const parts = this.parts
    this.expiry.clear()
    parts?.background.close()
    // Pending touches are written on the closing connection, which waits for that to commit.
    parts?.touches.flushOn(this.connection.isOpen ? unwrap(this.connection.raw) : undefined)
    this.connection.close()
    this.unfollow()
    this.unhear()
  }
}

/**
 * Opens (creating or upgrading) a database whose declared stores have time to live.
 * @throws TtlError `INVALID_OPTION`, `INVALID_TTL`, `SCHEMA_MISMATCH`; IndexedDB `VersionError`
 */
export async function openTtlDB<S extends DBSchema | unknown = unknown>(
  name: string,
  options: OpenTtlDBOptions<S>,
): Promise<TtlDB<S>> {
  const stores = checkStoreConfigs(options?.stores)
  const mode = options.ttlValues ?? 'strict'
  if (mode !== 'strict' && mode !== 'lenient') {
    throw new TtlError('INVALID_OPTION', `ttlValues must be 'strict' or 'lenient'; got ${String(mode)}`)
  }
  const purge = checkPurgeOptions(options.purge)
  const clock = monotonic(options.clock ?? Date.now)
  const connection = new Connection({
    name,
    version: options.version,
    stores,
    clock,
    upgrade: options.upgrade as (raw: IDBPDatabase<any>, o: number, n: number | null) => void,
  })
  const db = await connection.native()
  const unfollow = follow(name)
  // Loaded once open, beside the app's first reads; sliding stores need it for those reads.
  const deferred = import('./deferred.js')
  deferred.catch(() => {})
  const sliding = Object.values(stores).some((config) => config.touchOnRead)
  let code: Deferred | Promise<Deferred> = deferred
  try {
    await applyDeclaredDefaults(db, () => connection.native(), stores, clock(), options.durability)
    if (sliding) code = await deferred
  } catch (error) {
    unfollow()
    connection.close()
    throw error
  }
  return new TtlDB<S>(name, connection, { ...options, clock }, stores, purge, unfollow, code)
}
