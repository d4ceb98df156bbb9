/**
 * Where a full handle's calls go: the core's routes (`core-routes.ts`), plus transactions
 * (SPEC §11), the write observers of mirrored stores (SPEC §12b), and the quota relief that gives
 * up live items of `evictOnQuota` stores and drops generations (SPEC §9).
 */
import type { DuringWork } from '../background/during.js'
import { publish, type DeletedItem } from '../events/listeners.js'
import type { PurgeReport } from '../events/reports.js'
import type { Spare } from '../purge/quota.js'
import type { QuotaRelief } from '../purge/relieve.js'
import { settleTouches } from '../reads/owed-touches.js'
import { TtlError } from '../rules/errors.js'
import { refuse } from '../rules/refusal.js'
import type { Parts } from './parts.js'
import { CoreRoutes, type RoutesOptions } from './core-routes.js'
import { turnOf } from './turns.js'
import type { StashWork } from '../writes/writes.js'
import type { queueObserver } from '../transaction/mirror-queue.js'
import { Observers } from '../transaction/observers.js'
import type { Written } from '../writes/write-steps.js'
import type { Transaction } from '../transaction/transaction.js'

/** What the library's own mechanisms (the Cosmos DB mirror) ask of a transaction. */
export interface Internal {
  /** `false`: the write observers do not hear this transaction (their own writes). */
  observed?: boolean
  /** Library stores the transaction also holds, written through `tx.raw`. */
  extra?: readonly string[]
}

/**
 * What a full handle's entry hands its routes, loaded on first use: `transact.ts` at its
 * first transaction, the writes of stores kept in generations ({@link StashWork}) at the first
 * such write or drop, quota relief with its round of eviction at the first full disk, the stale
 * reads at the first. The page entries load them with `import()`, so that a page that never uses
 * them loads none of it; `idb-ttl/service-worker` imports them (service workers forbid `import()`).
 */
export interface FullLoads {
  /** What runs `db.transaction` once its turn came (`transact.ts`, with `transaction/run.ts`), at the first. */
  transactions: () => Promise<{ transactOn: TransactOn }>
  stashWork: () => Promise<StashWork>
  /** The steps of quota relief with the round of eviction (`purge/relief.ts`), at the first full disk. */
  relief: () => Promise<typeof import('../purge/relief.js')>
  /** The stale reads (`reads/stale.ts`), at a handle's first `getStale` or `getAllStale`. */
  stale: () => Promise<typeof import('../reads/stale.js')>
  /** The checks and refusals of `purgeDuring` (`background/during-work.ts`), at its first call. */
  during: () => Promise<DuringWork>
}

/** `transact.ts`'s `transactOn`: runs a transaction of `routes`' handle once its turn came, telling `opened` once created. */
export type TransactOn = <T>(
  routes: Routes,
  stores: readonly string[],
  writable: boolean,
  callback: (tx: Transaction) => T | Promise<T>,
  internal: Internal,
  opened: () => void,
) => Promise<T>

/** The write observer of mirrored stores (`transaction/mirror-queue.ts`), which an open that declares one loads. */
export type MirrorWork = { queueObserver: typeof queueObserver }

export class Routes extends CoreRoutes<Parts> {
  /** Who hears every write of a store inside its transaction (`transaction/observers.ts`). */
  readonly observers = new Observers()

  /** `options` with the full handle's reads and writes of stores that keep values in generations (its parts'). */
  constructor(
    options: Omit<RoutesOptions<Parts>, 'generations'>,
    /** What the handle loads on first use. */
    readonly loads: FullLoads,
    /** Loaded by the open where a store is declared `mirror` (none is without it). */
    mirror?: MirrorWork,
  ) {
    super({ ...options, generations: options.parts.generations })
    // A mirrored store's writes are queued by every handle from open (SPEC §12b).
    for (const [store, config] of Object.entries(options.stores)) {
      if (config.mirror === true) this.observers.add(store, mirror!.queueObserver(store, options.clock))
    }
  }

  /** What runs beside requests (listeners, live queries, the background), while the handle is open. */
  get open(): Parts {
    if (this.options.parts.closed) throw new TtlError('CLOSED', 'the database handle was closed')
    return this.options.parts
  }

  /**
   * From now until `until` settles, the calls of `store` (and transactions over it) wait for it:
   * the mirror's change of scope, which must land before the app reads the store again. If it
   * rejects, they reject with its error until the next gate.
   */
  gate(store: string, until: Promise<unknown>): void {
    const settled = until.then(() => {})
    // One that fails (a mirror stopped before its scope landed) fails the store's calls with its
    // error until the next gate: each call meets it, none is left unhandled here.
    settled.catch(() => {})
    this.gates.set(store, settled)
    void settled.then(
      () => this.gates.get(store) === settled && this.gates.delete(store),
      () => {},
    )
  }

  /**
   * Evicts a share of the `evictOnQuota` stores (`evictRound`, loaded with the steps of relief that
   * call this), then drops the generations no row refers to.
   */
  protected override relief(spare: Spare | undefined): Pick<QuotaRelief, 'evictShare' | 'dropGenerations'> {
    const { name, stores, clock, connection, parts } = this.options
    return {
      evictShare: async () => {
        const opted = Object.keys(stores).filter((store) => stores[store].evictOnQuota)
        const onReport = (report: PurgeReport) => (parts.reports.emit(report), this.changed([report.store]))
        const now = clock()
        const { evictRound } = await this.loads.relief()
        return evictRound(name, opted, (store) => this.settled(store), now, onReport, spare)
      },
      dropGenerations: async () => (await this.loads.stashWork()).dropGenerationsOf(await connection.native(), Object.keys(stores)),
    }
  }

  /**
   * Runs `callback` in one transaction over `stores` (SPEC §11), with what it did applied after
   * the commit: claims reported, the purge woken, owed touches held. `observed: false` keeps the
   * write observers out (their own writes); `extra` adds library stores to the transaction. What
   * runs it once its turn came (`transact.ts`) is loaded at the handle's first.
   * @throws TtlError `UNKNOWN_STORE`, `UNSUPPORTED` (a store that keeps values in generations)
   */
  async transact<T>(stores: readonly string[], writable: boolean, callback: (tx: Transaction) => T | Promise<T>, internal: Internal = {}): Promise<T> {
    const { name, stores: configs } = this.options
    try {
      stores.forEach((store) => this.check(store))
      this.refuseApart(stores.filter((store) => configs[store].evictOnQuota), 'evictOnQuota')
    } catch (error) {
      return this.explained(error)
    }
    // The library's own transactions (the change a gate waits for among them) never wait, for the
    // gate nor for the calls made before (`turns.ts`); the app's create theirs after those.
    const turns = internal.observed !== false ? stores.map((store) => turnOf(this.turns, store)) : []
    const opened = () => turns.forEach((turn) => turn.take())
    try {
      await Promise.all(stores.map((store) => settleTouches(name, store)))
      if (internal.observed !== false) await Promise.all(stores.map((store) => this.gates.get(store)))
      const { transactOn } = await this.loads.transactions()
      await Promise.all(turns.map((turn) => turn.before))
      return await transactOn(this, stores, writable, callback, internal, opened)
    } catch (error) {
      // A refusal once the connection is open (`transact.ts`: a store another handle gave generations) in its words.
      return this.explained(error)
    } finally {
      opened()
    }
  }

  /**
   * Refuses a transaction over `apart`, stores that keep their values in generations, for `why`.
   * A method, so that `transact.ts` calls it with no import of this module, which is in the first
   * load: a chunk loaded later that imports only what `idb-ttl/core` loads first keeps an app's
   * bundler from splitting the first load in two.
   * @throws TtlError `UNSUPPORTED` naming the first of `apart` and `why` (`refuse`d: the transaction explains it)
   */
  refuseApart(apart: readonly string[], why: string): void {
    if (apart.length > 0) throw refuse('UNSUPPORTED', 'apart', apart[0], why)
  }

  /** Reports the dead items a transaction's writes claimed (`transact.ts`), as a write's are. */
  reportClaimed(store: string, items: Written<unknown>['claimed']): void {
    this.claimed(store, { result: undefined, claimed: items })
  }

  /** The listeners are in this handle's first load: told at once, whether or not the calls' chunk ever loads (a transaction's claims need not). */
  protected override publishClaimed(store: string, items: DeletedItem[]): void {
    publish(this.options.name, { store, reason: 'expired', items }, this.options.generations)
  }
}
