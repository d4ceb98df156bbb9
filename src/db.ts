/**
 * `openTtlDB` and the handle it returns: one connection, the declared stores, and every
 * operation routed to the reads, writes and purge modules.
 */
import { unwrap, type DBSchema, type IDBPDatabase } from 'idb'
import { UserActivity } from './activity.js'
import { Connection } from './connection.js'
import { describeError, TtlError } from './errors.js'
import { META_STORE } from './expiry-index.js'
import { monotonic } from './clock.js'
import { follow } from './watermarks.js'
import { ExpiryListeners, publish, type ExpireEvent, type ExpireOptions } from './events.js'
import { DEFAULT_BATCH_SIZE } from './purge.js'
import { PurgeScheduler, type PurgeReport } from './scheduler.js'
import { WakeChannel, type WakeMessage } from './wake.js'
import { createPurgeApi } from './worker/purge-api.js'
import { WorkerPurger } from './worker/client.js'
import type { PurgeApi } from './worker/api.js'
import { settleTouches, Touches } from './touch.js'
import { countLive, getByKey, getKeys, getMany, getOne, pages, ReadScope, stats, type StoreStats } from './reads.js'
import { evictRound, storageUsage, withQuotaRelief } from './quota.js'
import { req } from './request.js'
import { applyDeclaredDefaults, checkStoreConfigs, type StoreConfigs } from './schema.js'
import type { DefaultTtl, TtlValues } from './ttl.js'
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
} from './types.js'
import * as writes from './writes.js'
import type { StoreState } from './policy.js'

type Changes<T> = Partial<Writable<T>> | ((item: Stamped<T>) => Writable<T>)

/** A database whose declared stores follow Cosmos DB time-to-live rules. */
export class TtlDB<S extends DBSchema | unknown = unknown> {
  private readonly name: string
  private readonly connection: Connection
  private readonly stores: StoreConfigs
  private readonly clock: () => number
  private readonly mode: TtlValues
  private readonly durability: IDBTransactionDurability | undefined
  private readonly purger: PurgeApi & { noteActivity?(): void }
  private readonly activity = new UserActivity()
  private readonly scheduler: PurgeScheduler | undefined
  private readonly wake: WakeChannel
  private readonly listeners = new Set<(report: PurgeReport) => void>()
  private readonly touches: Touches
  private readonly expiry: ExpiryListeners
  private closed = false

  /** @internal Use {@link openTtlDB}. */
  constructor(
    name: string,
    connection: Connection,
    options: OpenTtlDBOptions<S>,
    stores: StoreConfigs,
    purge: Required<PurgeOptions>,
    private readonly unfollow: () => void,
  ) {
    this.name = name
    this.expiry = new ExpiryListeners(name)
    this.connection = connection
    this.stores = stores
    this.clock = options.clock ?? Date.now
    this.mode = options.ttlValues ?? 'strict'
    this.durability = options.durability
    const sliding = Object.entries(stores).filter(([, config]) => config.touchOnRead)
    this.touches = new Touches(
      name,
      () => connection.native(),
      new Map(sliding.map(([store, config]) => [store, config.keyPath!])),
      (error) => this.reportFailure(error),
    )
    const config = { name, stores, batchSize: purge.batchSize, sliceMs: purge.sliceMs }
    this.purger =
      purge.mode === 'worker'
        ? new WorkerPurger(config)
        : createPurgeApi(config, () => connection.native(), () => {}, this.activity)
    if (purge.mode !== 'off') {
      this.scheduler = new PurgeScheduler(this.purger, `idb-ttl:purge:${name}`, {
        clock: this.clock,
        maxIntervalMs: purge.maxIntervalMs,
        idleTimeoutMs: purge.idleTimeoutMs,
        onReport: (report) => this.emit(report),
        beforeSlice: () => settleTouches(name),
      })
    }
    const scheduler = this.scheduler
    const onWake = (m: WakeMessage) => (m.ttls ? scheduler?.noteWrite(m.store, m.ttls, m.nowMs!) : scheduler?.soon())
    this.wake = new WakeChannel(name, scheduler && onWake)
  }

  /** Wakes the purger, this handle's scheduler or another handle's, for items just written. */
  private wrote(store: string, ttls: readonly unknown[]): void {
    if (this.isPurger) this.scheduler?.noteWrite(store, ttls, this.clock())
    else this.wake.wrote(store, ttls, this.clock())
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
   * and after `close()`. Always `false` with `purge.mode: 'off'`; `true` at once where there are
   * no Web Locks (every connection purges). To see the purge work, listen with `onPurge`.
   */
  get isPurger(): boolean {
    return this.scheduler?.isLeader ?? false
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
    this.activity.note()
    this.purger.noteActivity?.()
    return this.connection.native()
  }

  private async read(store: string): Promise<ReadScope> {
    return new ReadScope(await this.db(store), store, this.clock, this.touches)
  }

  /**
   * The connection for work that judges `store` by what is on disk (counts, keys, writes,
   * purges): the touches that any handle of this page owes the store are written first.
   */
  private async settled(store: string): Promise<IDBDatabase> {
    const db = await this.db(store)
    await settleTouches(this.name, store)
    return db
  }

  private async settledRead(store: string): Promise<ReadScope> {
    return new ReadScope(await this.settled(store), store, this.clock, this.touches)
  }

  private async writer(store: string): Promise<writes.WriteContext> {
    return { db: await this.settled(store), clock: this.clock, mode: this.mode, durability: this.durability, keepTs: this.stores[store].keepTs }
  }

  /**
   * Runs a write; if the disk is full, purges, evicts from the stores with `evictOnQuota`, and
   * runs it again (SPEC §9, `quota.ts`).
   */
  private spacious<T>(attempt: () => Promise<T>): Promise<T> {
    return withQuotaRelief(attempt, {
      purgeExpired: () => this.purgeExpired(),
      evictShare: () => {
        const opted = Object.keys(this.stores).filter((name) => this.stores[name].evictOnQuota)
        return evictRound(this.name, opted, (store) => this.settled(store), this.clock(), (report) => this.emit(report))
      },
      usage: storageUsage,
    })
  }

  /** Reports dead items a write deleted to make room for itself (see `claim.ts`). */
  private claimed<T>(store: string, written: writes.Written<T>): T {
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
    const attempt = async () => writes.writeAll(await this.writer(store), store, values, method, keys, !keys)
    const written = this.claimed(store, await this.spacious(attempt))
    this.wrote(store, values.map((value) => (value as { ttl?: unknown }).ttl))
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
    const attempt = async () => writes.update(await this.writer(store), store, key, changes as Parameters<typeof writes.update>[3])
    const item = this.claimed(store, await this.spacious(attempt))
    this.wrote(store, [item.ttl])
    return item as Stamped<StoreValue<S, N>>
  }

  /** Rewrites the live item at `key` unchanged, restarting its countdown. */
  async touch<N extends StoreNames<S>>(store: N, key: StoreKey<S, N>): Promise<Stamped<StoreValue<S, N>>> {
    return this.update(store, key, {})
  }

  /** The live item at `key` (or the first in a range), or `undefined`. */
  async get<N extends StoreNames<S>>(store: N, query: Query<S, N>): Promise<Stamped<StoreValue<S, N>> | undefined> {
    if (!(query instanceof IDBKeyRange)) {
      return getByKey(await this.db(store), store, query, this.clock, this.touches) as Promise<Stamped<StoreValue<S, N>> | undefined>
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
    return writes.remove(await this.writer(store), store, query)
  }

  /** Deletes every item of the store. */
  async clear<N extends StoreNames<S>>(store: N): Promise<void> {
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
    await writes.setDefaultTtl(await this.writer(store), store, defaultTtl)
    if (this.isPurger) this.scheduler?.soon()
    else this.wake.due(store)
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
    const started = performance.now()
    const report = { store: store ?? '*', deleted: 0, more: false, nextExpiryMs: NaN }
    try {
      report.deleted = await this.purger.purgeAll(names, this.clock())
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
    this.expiry.clear()
    this.scheduler?.stop()
    this.wake.close()
    void this.purger.close()
    // Pending touches are written on the closing connection, which waits for that to commit.
    this.touches.flushOn(this.connection.isOpen ? unwrap(this.connection.raw) : undefined)
    this.connection.close()
    this.unfollow()
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
  try {
    await applyDeclaredDefaults(db, stores, clock(), options.durability)
  } catch (error) {
    unfollow()
    connection.close()
    throw error
  }
  return new TtlDB<S>(name, connection, { ...options, clock }, stores, purge, unfollow)
}

const positive = (value: unknown) => typeof value === 'number' && value > 0 && Number.isFinite(value)

/** Fills in the purge defaults and rejects malformed tuning. */
function checkPurgeOptions(options: PurgeOptions = {}): Required<PurgeOptions> {
  const mode = options.mode ?? (typeof Worker === 'function' ? 'worker' : 'inline')
  // An option given as `undefined` means the default, as if it were absent.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))
  const purge = { batchSize: DEFAULT_BATCH_SIZE, sliceMs: 30, maxIntervalMs: 60_000, idleTimeoutMs: 2_000, ...given, mode }
  if (!['worker', 'inline', 'off'].includes(mode)) {
    throw new TtlError('INVALID_OPTION', `purge.mode must be 'worker', 'inline' or 'off'; got ${String(mode)}`)
  }
  if (!Number.isInteger(purge.batchSize) || !positive(purge.batchSize)) {
    throw new TtlError('INVALID_OPTION', 'purge.batchSize must be a positive integer')
  }
  for (const key of ['sliceMs', 'maxIntervalMs', 'idleTimeoutMs'] as const) {
    if (!positive(purge[key])) throw new TtlError('INVALID_OPTION', `purge.${key} must be a positive number of ms`)
  }
  return purge
}
