/**
 * Where a handle's calls go: each request checks its store, tells the purge a request is starting,
 * and gets its connection; work that judges a store by what is on disk (counts, keys, writes,
 * purges) first has the page's owed touches written; writes run with quota relief (SPEC §9) and
 * report the dead items they claimed; purges report to `onPurge`. Every committed change tells the
 * live queries ({@link Routes.changed}).
 */
import { requestStarting } from '../background/activity.js'
import { publish } from '../events/listeners.js'
import type { PurgeReport } from '../events/reports.js'
import type { Connection } from '../layout/connection.js'
import type { StoreConfigs } from '../layout/schema.js'
import { dropGenerationsOf } from '../generations/stash.js'
import { storageUsage } from '../platform/storage.js'
import { evictRound, withQuotaRelief, type Spare } from '../purge/quota.js'
import { ReadScope } from '../reads/reads.js'
import { settleTouches } from '../reads/touch.js'
import { describeError, TtlError } from '../rules/errors.js'
import type { TtlValues } from '../rules/ttl.js'
import type { WriteContext, Written } from '../writes/writes.js'
import type { Parts } from './parts.js'
import { queueObserver } from '../transaction/mirror-queue.js'
import { Observers } from '../transaction/observers.js'
import { runTransaction } from '../transaction/run.js'
import type { Transaction } from '../transaction/transaction.js'

export interface RoutesOptions {
  name: string
  connection: Connection
  stores: StoreConfigs
  clock: () => number
  mode: TtlValues
  durability: IDBTransactionDurability | undefined
  parts: Parts
}

/** What the library's own mechanisms (the Cosmos DB mirror) ask of a transaction. */
export interface Internal {
  /** `false`: the write observers do not hear this transaction (their own writes). */
  observed?: boolean
  /** Library stores the transaction also holds, written through `tx.raw`. */
  extra?: readonly string[]
}

export class Routes {
  /** Who hears every write of a store inside its transaction (`transaction/observers.ts`). */
  readonly observers = new Observers()
  /** Stores whose calls wait for a change the library is making to them ({@link gate}). */
  private readonly gates = new Map<string, Promise<void>>()

  constructor(readonly options: RoutesOptions) {
    // A mirrored store's writes are queued by every handle from open (SPEC §12b).
    for (const [store, config] of Object.entries(options.stores)) {
      if (config.mirror === true) this.observers.add(store, queueObserver(store, options.clock))
    }
  }

  /** What runs beside requests (listeners, the background), while the handle is open. */
  get open(): Parts {
    if (this.options.parts.closed) throw new TtlError('CLOSED', 'the database handle was closed')
    return this.options.parts
  }

  /** @throws TtlError `UNKNOWN_STORE` */
  check(store: string): void {
    const { stores } = this.options
    if (!Object.hasOwn(stores, store)) {
      const declared = Object.keys(stores).map((name) => `"${name}"`).join(', ') || 'none'
      throw new TtlError('UNKNOWN_STORE', `"${String(store)}" is not a store declared in openTtlDB (declared: ${declared})`)
    }
  }

  /** The connection for a request on `store`, which the purge lets go first. */
  db(store: string): Promise<IDBDatabase> {
    // Not async: the hot paths (get, put) pay no extra promise for it.
    try {
      this.check(store)
    } catch (error) {
      return Promise.reject(error)
    }
    requestStarting()
    const gate = this.gates.get(store)
    return gate ? gate.then(() => this.options.connection.native()) : this.options.connection.native()
  }

  /**
   * From now until `until` settles, the calls of `store` (and transactions over it) wait for it:
   * the mirror's change of scope, which must land before the app reads the store again.
   */
  gate(store: string, until: Promise<unknown>): void {
    const settled = until.then(
      () => {},
      () => {},
    )
    this.gates.set(store, settled)
    void settled.then(() => this.gates.get(store) === settled && this.gates.delete(store))
  }

  async read(store: string): Promise<ReadScope> {
    return ReadScope.open(await this.db(store), store, this.options.clock, this.options.parts.touches)
  }

  /** The connection for work that judges `store` by what is on disk: owed touches written first. */
  async settled(store: string): Promise<IDBDatabase> {
    this.check(store)
    await settleTouches(this.options.name, store)
    // Asked for last: an upgrade elsewhere may close the connection while touches are written.
    return this.db(store)
  }

  async settledRead(store: string): Promise<ReadScope> {
    return ReadScope.open(await this.settled(store), store, this.options.clock, this.options.parts.touches)
  }

  /**
   * Runs a write, once more after each step of quota relief while the
   * disk is full (`purge/quota.ts`), which never gives up `spare` (the item an update rewrites);
   * reports the dead items it claimed and wakes the purger for the items it stored.
   */
  async write<T>(
    store: string,
    attempt: (ctx: WriteContext) => Promise<Written<T>>,
    stored: (result: T) => unknown[],
    spare?: Spare,
  ): Promise<T> {
    const run = async () => attempt(await this.writer(store))
    const written = this.claimed(store, await this.spacious(run, spare))
    this.changed([store])
    this.options.parts.background.wrote(store, stored(written))
    return written
  }

  /** Runs a change that needs no quota relief (a delete, a clear, a new default). */
  async change<T>(store: string, run: (ctx: WriteContext) => Promise<T>): Promise<T> {
    const result = await run(await this.writer(store))
    this.changed([store])
    return result
  }

  /** Changes the settings of `store` (`setDefaultTtl`): see {@link settingsChanged}. */
  async changeSettings(store: string, run: (ctx: WriteContext) => Promise<unknown>): Promise<void> {
    await run(await this.writer(store))
    this.settingsChanged([store])
  }

  /**
   * Tells the live queries of the database, in this realm and every other, that `stores` changed:
   * called once the change committed. Live queries reading them read again, and emit if their
   * result differs.
   */
  changed(stores: readonly string[]): void {
    this.options.parts.live.changed(stores)
  }

  /**
   * The settings of `stores` changed (a new default, by `setDefaultTtl` or by this handle's
   * declarations at open): live queries read again, and the purger, here or in another tab,
   * wakes for what the change made due.
   */
  settingsChanged(stores: readonly string[]): void {
    this.changed(stores)
    for (const store of stores) this.options.parts.background.due(store)
  }

  /** What a write of `store` runs with, on the connection {@link settled} gives. */
  private async writer(store: string): Promise<WriteContext> {
    const { clock, mode, durability, stores } = this.options
    return { db: await this.settled(store), clock, mode, durability, keepTs: stores[store].keepTs }
  }

  /** Runs `attempt` once more after each step of quota relief while the disk is full (SPEC §9). */
  spacious<T>(attempt: () => Promise<T>, spare?: Spare): Promise<T> {
    const { name, stores, clock, connection, parts } = this.options
    return withQuotaRelief(attempt, {
      purgeExpired: () => this.purgeExpired(),
      evictShare: () => {
        const opted = Object.keys(stores).filter((store) => stores[store].evictOnQuota)
        const onReport = (report: PurgeReport) => (parts.reports.emit(report), this.changed([report.store]))
        return evictRound(name, opted, (store) => this.settled(store), clock(), onReport, spare)
      },
      dropGenerations: async () => dropGenerationsOf(await connection.native(), Object.keys(stores)),
      usage: storageUsage,
    })
  }

  /** Reports dead items a write deleted to make room for itself (see `writes/claim.ts`). */
  private claimed<T>(store: string, written: Written<T>): T {
    const items = written.claimed
    if (items.length > 0) {
      this.options.parts.reports.emit({ store, deleted: items.length, durationMs: 0, more: false, nextExpiryMs: NaN })
      publish(this.options.name, { store, reason: 'expired', items })
    }
    return written.result
  }

  /**
   * Runs `callback` in one transaction over `stores` (SPEC §11), with what it did applied after
   * the commit: claims reported, the purge woken, owed touches held. `observed: false` keeps the
   * write observers out (their own writes); `extra` adds library stores to the transaction.
   * @throws TtlError `UNKNOWN_STORE`, `UNSUPPORTED` (a store that keeps values in generations)
   */
  async transact<T>(stores: readonly string[], writable: boolean, callback: (tx: Transaction) => T | Promise<T>, internal: Internal = {}): Promise<T> {
    const { name, stores: configs, clock, mode, durability, connection, parts } = this.options
    stores.forEach((store) => this.check(store))
    const apart = stores.filter((store) => configs[store].evictOnQuota)
    if (apart.length > 0) {
      throw new TtlError('UNSUPPORTED', `store "${apart[0]}" keeps its values in databases of their own (evictOnQuota), which one transaction cannot span; use the handle's own calls for it`)
    }
    await Promise.all(stores.map((store) => settleTouches(name, store)))
    // The library's own transactions (the change a gate waits for among them) never wait.
    if (internal.observed !== false) await Promise.all(stores.map((store) => this.gates.get(store)))
    requestStarting()
    const db = await connection.native()
    const observers = writable && internal.observed !== false ? this.observers : undefined
    const extra = [...new Set([...(internal.extra ?? []), ...(observers?.storesFor(stores) ?? [])])]
    // An observed write is the app's edit of a mirrored store: it restarts the countdown, whatever
    // `_ts` the value carries (SPEC §12b). Only the mirror's own writes, unobserved, keep the server's.
    const keepTs = (store: string) => (configs[store].keepTs === true || configs[store].mirror === true) && (observers?.of(store).length ?? 0) === 0
    const options = { db, stores, extra, writable, durability, now: clock(), mode, keepTs, touches: parts.touches, observers }
    return runTransaction(options, callback, async (effects) => {
      for (const [store, items] of effects.claimed) this.claimed(store, { result: undefined, claimed: items })
      for (const [store, stored] of effects.stored) parts.background.wrote(store, stored)
      if (effects.stored.size > 0) this.changed([...effects.stored.keys()])
      await Promise.all(effects.touched)
    })
  }

  /** Deletes what is expired now in `store` (or every store); resolves to how many went. */
  async purgeExpired(store?: string): Promise<number> {
    const { stores, clock, parts } = this.options
    const names = store === undefined ? Object.keys(stores) : [store]
    names.forEach((name) => this.check(name))
    await Promise.all(names.map((name) => this.settled(name)))
    const { background } = parts
    const started = performance.now()
    const report = { store: store ?? '*', deleted: 0, more: false, nextExpiryMs: NaN }
    try {
      report.deleted = await background.purger.purgeAll(names, clock())
    } catch (error) {
      if (!parts.closed) parts.reports.emit({ ...report, durationMs: performance.now() - started, error: describeError(error) })
      throw error
    }
    if (report.deleted > 0) {
      parts.reports.emit({ ...report, durationMs: performance.now() - started })
      this.changed(names)
    }
    return report.deleted
  }
}
