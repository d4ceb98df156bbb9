/**
 * Where the basic calls of any handle go (`idb-ttl/core`'s and the full one's, `routes.ts`):
 * each request checks its store, tells the purge a request is starting, and gets its connection
 * (on which `idb-ttl/core`'s handle, without {@link RoutesOptions.generations}, refuses the stores
 * that keep them: `core-refusals.ts`); work that judges a store by what is on disk (counts, keys,
 * writes, purges) first has the owed touches written; writes run with quota relief (SPEC §9: the expired purged, then whatever
 * {@link CoreRoutes.relief} adds) and report the dead items they claimed; purges report to
 * `onPurge`. Every committed change tells the live queries ({@link CoreRoutes.changed}).
 */
import { requestStarting } from '../background/activity.js'
import type { DeletedItem, publish } from '../events/listeners.js'
import type { Connection } from '../layout/connection.js'
import type { StoreConfigs } from '../layout/schema.js'
import { storageUsage } from '../platform/storage.js'
import { withQuotaRelief, type LoadRelief, type Spare } from '../purge/quota.js'
import type { QuotaRelief } from '../purge/relieve.js'
import type { UndoLeaked } from '../purge/undo-leaked.js'
import { ReadScope, type Reading } from '../reads/reads.js'
import { settleTouches } from '../reads/owed-touches.js'
import { TtlError } from '../rules/errors.js'
import { explain, type LoadTexts } from '../rules/refusal.js'
import type { TtlValues } from '../rules/ttl.js'
import type { Generations, WriteContext, Written } from '../writes/write-steps.js'
import type { CoreParts } from './core-parts.js'
import { turnOf, type Turn, type Turns } from './turns.js'

export interface RoutesOptions<P extends CoreParts = CoreParts> {
  name: string
  connection: Connection
  stores: StoreConfigs
  clock: () => number
  mode: TtlValues
  durability: IDBTransactionDurability | undefined
  parts: P
  /** What Storage Buckets and `db.storage()` run (`storage-work.ts`), as the entry loads it. */
  loadStorage: LoadStorage
  /** The steps of quota relief (`purge/relieve.ts`), as the entry loads them: at the first full disk. */
  loadRelief: LoadRelief
  /** What the handle's less common calls run (`assembly/calls.ts`), as the entry loads it: `purgeExpired`'s purge among them. */
  loadCalls: () => Promise<{ purgeNow: (routes: CoreRoutes, names: string[], store: string | undefined, stale: boolean) => Promise<number>; publish: typeof publish }>
  /** The words of the calls' refusals (`rules/texts.ts`), as the entry loads them: at the first. */
  texts: LoadTexts
  /**
   * How the handle reads and writes stores that keep their values in generations (`evictOnQuota`):
   * the full handle's. Without it (`idb-ttl/core`) every call on such a store is refused.
   */
  generations?: Generations
}

/** `storage-work.ts` as an entry gets it: with `import()` in the page entries, imported by the service worker's. */
export type LoadStorage = () => Promise<typeof import('./storage-work.js')>

export class CoreRoutes<P extends CoreParts = CoreParts> {
  /** Stores whose calls wait for a change the library is making to them (the full handle's `Routes.gate`). */
  protected readonly gates = new Map<string, Promise<void>>()
  /** The order of the calls on each store: each creates its transaction after those made before (`turns.ts`). */
  protected readonly turns: Turns = new Map()
  /** What the handle's reads bring (`reads/reads.ts`): its owed touches, its reading of generations. */
  readonly reading: Reading

  constructor(readonly options: RoutesOptions<P>) {
    this.reading = { touches: options.parts.touches, generations: options.generations }
  }

  /** @throws TtlError `UNKNOWN_STORE` */
  check(store: string): void {
    const { stores } = this.options
    if (!Object.hasOwn(stores, store)) {
      const declared = Object.keys(stores).map((name) => `"${name}"`).join(', ') || 'none'
      throw new TtlError('UNKNOWN_STORE', `"${String(store)}" is not a store declared in openTtlDB (declared: ${declared})`)
    }
  }

  /**
   * The connection for a request on `store`, which the purge lets go first; once the store's gate
   * opened, unless not `gated` (the mirror's own work under its Web Lock, which the gate's change
   * of scope waits for).
   */
  db(store: string, gated = true): Promise<IDBDatabase> {
    // Not async, and no `then` when the connection is open: the hot paths (get, put) pay no extra promise for it.
    try {
      this.check(store)
    } catch (error) {
      return Promise.reject(error)
    }
    requestStarting()
    const gate = gated ? this.gates.get(store) : undefined
    const open = gate ? undefined : this.options.connection.openNow
    if (open) {
      const refused = this.refused(open, store)
      return refused ? this.explained(refused) : Promise.resolve(open)
    }
    const db = gate ? gate.then(() => this.options.connection.native()) : this.options.connection.native()
    if (this.options.generations) return db
    return db.then((db) => {
      const refused = this.refused(db, store)
      return refused ? this.explained(refused) : db
    })
  }

  /**
   * Rejects with `error`, in its words once they are loaded when it is a `refuse`d one
   * (`rules/refusal.ts`): what the calls' refusals pass through before the call rejects.
   */
  explained(error: unknown): Promise<never> {
    return explain(error, this.options.texts)
  }

  /**
   * Why this handle refuses `store` on connection `db`: nothing here; a handle without
   * generations (`idb-ttl/core`'s, `core-refusals.ts`) refuses the stores that keep them.
   */
  protected refused(_db: IDBDatabase, _store: string): TtlError | undefined {
    return undefined
  }

  /**
   * The open connection for a request on `store` when nothing stands before it (no gate, no
   * reopening, no refusal: {@link db} says why), the request noted as {@link db} does;
   * `undefined`: ask {@link db}.
   */
  openNow(store: string): IDBDatabase | undefined {
    const open = this.options.connection.openNow
    if (!open || this.gates.has(store) || this.turns.has(store) || !Object.hasOwn(this.options.stores, store) || this.refused(open, store)) return undefined
    requestStarting()
    return open
  }

  /** A read of `store`, in its turn (`turns.ts`), on the connection `connect` gives ({@link db}'s by default). */
  async read(store: string, connect?: () => Promise<IDBDatabase>): Promise<ReadScope> {
    return this.inTurn(store, (db) => ReadScope.open(db, store, this.options.clock, this.reading), connect)
  }

  /**
   * Calls `use`, which creates a read's transaction over `store`, with the connection `connect`
   * gives ({@link db}'s by default), once the calls made before on the store created theirs.
   */
  async inTurn<T>(store: string, use: (db: IDBDatabase) => T | Promise<T>, connect = () => this.db(store)): Promise<T> {
    const turn = turnOf(this.turns, store)
    try {
      // The connection asked for once the turn came: one taken before it may have closed (close(),
      // an upgrade elsewhere) while the calls before created theirs.
      if (turn.before) await turn.before
      return use(await connect())
    } finally {
      turn.take()
    }
  }

  /** The connection for work that judges `store` by what is on disk: owed touches written first; `gated`: see {@link db}. */
  async settled(store: string, gated = true): Promise<IDBDatabase> {
    this.check(store)
    await settleTouches(this.options.name, store)
    // Asked for last: an upgrade elsewhere may close the connection while touches are written.
    return this.db(store, gated)
  }

  async settledRead(store: string): Promise<ReadScope> {
    return this.read(store, () => this.settled(store))
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
    const turn = turnOf(this.turns, store)
    const run = async () => {
      const ctx = await this.writer(store, true, turn)
      try {
        return await attempt(ctx)
      } catch (error) {
        // Its connection stepped aside (an upgrade or a deletion elsewhere) while the write waited
        // (for the chunk of the writes of generations, say), before its rows' transaction began:
        // once more, on the connection reopened.
        if ((error as DOMException | null)?.name !== 'InvalidStateError' || this.options.connection.openNow === ctx.db) throw error
        return attempt(await this.writer(store, true, turn))
      }
    }
    let written: T
    try {
      written = this.claimed(store, await this.spacious(run, spare).finally(turn.take))
    } catch (error) {
      // Its refusal (a value it cannot write, say) in its words; the turn is taken, the calls after it go on.
      return this.explained(error)
    }
    this.changed([store])
    this.options.parts.background.wrote(store, stored(written))
    return written
  }

  /** Runs a change that needs no quota relief (a delete, a clear, a new default). */
  async change<T>(store: string, run: (ctx: WriteContext) => Promise<T>): Promise<T> {
    const turn = turnOf(this.turns, store)
    let result: T
    try {
      result = await this.writer(store, true, turn).then(run).finally(turn.take)
    } catch (error) {
      return this.explained(error)
    }
    this.changed([store])
    return result
  }

  /**
   * Changes the settings of `store` (`setDefaultTtl`), in its turn among the store's calls when
   * `gated`: see {@link settingsChanged}, {@link db}.
   */
  async changeSettings(store: string, run: (ctx: WriteContext) => Promise<unknown>, gated = true): Promise<void> {
    // The mirror's change (not gated) runs under its Web Lock while the store's calls wait at its gate: it takes no turn behind them.
    const turn = gated ? turnOf(this.turns, store) : undefined
    try {
      await this.writer(store, false, turn, gated).then(run).finally(turn?.take)
    } catch (error) {
      // A default refused (the mirror's, from its server) in its words.
      return this.explained(error)
    }
    this.settingsChanged([store])
  }

  /**
   * Tells the live queries of the database, in this realm and every other, that `stores` changed:
   * called once the change committed. Live queries reading them read again, and emit if their
   * result differs.
   */
  changed(stores: readonly string[]): void {
    this.options.parts.changed(stores)
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

  /**
   * What a write of `store` runs with, on the connection {@link settled} gives; for a write of its
   * items (`items`), once {@link refuseUnqueued} let it; with its `turn`, once the calls made
   * before it on the store created their transactions, and telling the turn when it created its own.
   */
  private async writer(store: string, items = false, turn?: Turn, gated = true): Promise<WriteContext> {
    const { clock, mode, durability, stores, generations } = this.options
    // The connection asked for once the turn came, as for a read (`inTurn`).
    if (turn?.before) await turn.before
    const db = await this.settled(store, gated)
    if (items) await this.refuseUnqueued(db, store)
    return { db, clock, mode, durability, keepTs: stores[store].keepTs, generations, began: turn?.take, undoLeaked: this.undoLeaked }
  }

  /**
   * Refuses the writes of `store` that this handle cannot queue for a mirror: none here; the
   * full handle queues them (`routes.ts`), and `idb-ttl/core`'s refuses them (`core-refusals.ts`).
   */
  protected async refuseUnqueued(_db: IDBDatabase, _store: string): Promise<void> {}

  /** Runs `attempt` once more after each step of quota relief while the disk is full (SPEC §9). */
  spacious<T>(attempt: () => Promise<T>, spare?: Spare): Promise<T> {
    return withQuotaRelief(attempt, { database: this.options.name, purgeExpired: () => this.purgeExpired(undefined, true), usage: storageUsage, ...this.relief(spare) }, this.loadRelief)
  }

  /**
   * Relief's steps with the calls' chunk, whose `purge-now.ts` runs relief's first step, the purge of
   * the expired: both load before any step, or a purge that could not load would count as nothing
   * to purge and live items would be evicted while expired ones stay (SPEC §9); else the write
   * rejects with its own error. Made once, not per write.
   */
  private readonly loadRelief: LoadRelief = () => Promise.all([this.options.loadRelief(), this.options.loadCalls()]).then(([relief]) => relief)

  /**
   * Deletes what a write or a transaction refused for lack of space left behind (Firefox at its
   * quota: `purge/undo-leaked.ts`), loaded with relief's steps, not with the calls' chunk, which
   * the undoing does not need. Rejects, as a failed undoing does, when the steps cannot be loaded.
   */
  readonly undoLeaked: UndoLeaked = (db, store, stored) => this.options.loadRelief().then((relief) => relief.undoLeaked(db, store, stored))

  /**
   * The steps of quota relief after the purge of the expired: none here, where no store gives up
   * live items (`evictOnQuota`) or keeps values in generations; the full handle's `routes.ts` has them.
   */
  protected relief(_spare: Spare | undefined): Pick<QuotaRelief, 'evictShare' | 'dropGenerations'> {
    return { evictShare: async () => 0, dropGenerations: async () => undefined }
  }

  /** Reports dead items a write deleted to make room for itself (see `writes/claim.ts`). */
  protected claimed<T>(store: string, written: Written<T>): T {
    const items = written.claimed
    if (items.length > 0) {
      this.options.parts.reports.emit({ store, deleted: items.length, durationMs: 0, more: false, nextExpiryMs: NaN })
      this.publishClaimed(store, items)
    }
    return written.result
  }

  /**
   * Tells the expiry listeners of the database, in every realm, of the dead items a write claimed,
   * with `publish` from the less common calls: whatever claimed them loaded those already (a
   * write's claim, `writes/claim.ts`; the chunks of transactions and of the writes of values kept in
   * generations import them), so `idb-ttl/core`'s first load carries no listeners.
   */
  protected publishClaimed(store: string, items: DeletedItem[]): void {
    // The claim loaded the calls (`once`: this is the same settled load), so this rejects only if they never loaded.
    void this.options.loadCalls().then(
      (calls) => calls.publish(this.options.name, { store, reason: 'expired', items }, this.options.generations),
      () => {},
    )
  }

  /**
   * Deletes what is expired now in `store` (or every store), past its grace (`keepExpired`) unless
   * `stale` (quota relief, SPEC §15); resolves to how many went (`purge-now.ts`, loaded at the first).
   */
  async purgeExpired(store?: string, stale = false): Promise<number> {
    const names = store === undefined ? Object.keys(this.options.stores) : [store]
    names.forEach((name) => this.check(name))
    return (await this.options.loadCalls()).purgeNow(this, names, store, stale)
  }
}
