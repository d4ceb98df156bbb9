/**
 * Reads that hide dead items. Each runs in one read-only transaction over the data store, judged
 * by the settings its realm holds (`layout/held-settings.ts`: no change of settings can commit
 * while it holds them), or, holding none, over the data store and the metadata store, so that
 * the settings it judges by are the ones committed with the data it reads.
 */
import { allDeadRanges, EXPIRY_INDEX, META_STORE } from '../layout/expiry-index.js'
import { hasGenerations, refOf } from '../layout/generation-index.js'
import type { GenerationValues } from '../generations/values.js'
import { cutoffs, isDeadMark, type Cutoffs, type ExpiryMark, type StoreState } from '../rules/policy.js'
import { inQuery, req, walk } from '../platform/request.js'
import { markOfStored, unstamp } from '../layout/stamp.js'
import type { Touches } from './touch.js'
import { owedMark, slides } from './owed-touches.js'
import { heldSettings, settingsIn, settingsRead, settingsTicket } from '../layout/held-settings.js'

/** What a read takes: a key, a range, or none (all). */
export type Query = IDBValidKey | IDBKeyRange | null | undefined
/** What a read reads: a store, or one of its indexes. */
export type Source = IDBObjectStore | IDBIndex

/**
 * What a handle brings to its reads: the touches it owes its `touchOnRead` stores (`touch.ts`)
 * and the reading of values kept in generations, both a full handle's. An `idb-ttl/core` handle
 * brings neither: it refuses both (`handle/core-routes.ts`), and counts the touches other
 * handles of the realm owe (`owed-touches.ts`) as every read does.
 */
export interface Reading {
  touches?: Touches
  generations?: GenerationValues
}

/**
 * A read-only transaction over `store` and its settings, judged at one `now`; `cut()` resolves
 * the cut-offs. On a store some handle of the realm slides, owed touches count, and what it
 * returns is touched by the handle's own touches.
 */
export class ReadScope {
  private readonly sliding: boolean

  /**
   * A scope over `store`, judged by `state`, the store's settings (held, or read in its transaction). `owe`
   * takes the promise of the touches a read owes instead of the read awaiting it: inside a
   * transaction the read must not wait for anything but IndexedDB (`transaction/`).
   */
  constructor(
    readonly store: IDBObjectStore,
    readonly state: Promise<StoreState>,
    readonly now: number,
    readonly reading: Reading,
    private readonly owe?: (touched: Promise<void>) => void,
  ) {
    this.sliding = slides(store.transaction.db.name, store.name)
  }

  /** A read-only transaction over `storeName` (and its settings, unless held), judged at `clock()`. */
  static open(db: IDBDatabase, storeName: string, clock: () => number, reading: Reading): ReadScope {
    const held = heldSettings(db.name, storeName)
    if (held) return new ReadScope(db.transaction(storeName, 'readonly').objectStore(storeName), Promise.resolve(held), clock(), reading)
    const ticket = settingsTicket(db.name)
    const tx = db.transaction([storeName, META_STORE], 'readonly')
    const state = settingsIn(tx, storeName, ticket)
    return new ReadScope(tx.objectStore(storeName), state, clock(), reading)
  }

  async cut(): Promise<Cutoffs> {
    return cutoffs(await this.state, this.now)
  }

  /** A stored value's expiry mark, a touch the realm owes it counted. */
  markFor(value: unknown): ExpiryMark | undefined {
    return this.sliding ? owedMark(this.store.transaction.db.name, this.store.name, value) : markOfStored(value)
  }

  /** Whether a stored value is live under `cut`, a pending touch counted. */
  live(cut: Cutoffs): (value: unknown) => boolean {
    return (value) => !isDeadMark(this.markFor(value), cut)
  }

  /**
   * What a read returns of live stored values: touched on a sliding store, values kept in
   * generations read from there (one evicted meanwhile is left out), bookkeeping removed.
   */
  async out(values: unknown[]): Promise<unknown[]> {
    const { touches, generations } = this.reading
    const touched = this.sliding ? touches?.touch(this.store.name, values, this.now, await this.state) : undefined
    if (touched && this.owe) this.owe(touched)
    else await touched
    if (!hasGenerations(this.store)) return values.map(unstamp)
    // Only a handle with generations reads such a store: `idb-ttl/core`'s refuses it.
    const resolved = await generations!.resolve(this.store.transaction.db.name, this.store.name, values)
    return resolved.filter((value) => value !== undefined).map(unstamp)
  }

  /** How many dead items lie in `query`; without one, index counts alone (no keys read). */
  async deadCount(cut: Cutoffs, query: Query): Promise<number> {
    if (query !== undefined && query !== null) {
      return (await deadKeyList(this, cut)).filter((key) => inQuery(key, query)).length
    }
    const index = this.store.index(EXPIRY_INDEX)
    const counts = await Promise.all(allDeadRanges(cut).map((range) => req(index.count(range))))
    return counts.reduce((a, b) => a + b, 0)
  }
}

/** Primary keys of the dead items of the scope's store, by the expiry index: work in proportion to the dead. */
export async function deadKeyList(scope: ReadScope, cut: Cutoffs): Promise<IDBValidKey[]> {
  const index = scope.store.index(EXPIRY_INDEX)
  const lists = await Promise.all(allDeadRanges(cut).map((range) => req(index.getAllKeys(range))))
  return lists.flat()
}

/** The live values of `source` in `query`, at most `limit`, walked with a cursor. */
export function liveValues(scope: ReadScope, source: Source, query: Query, limit: number | undefined, cut: Cutoffs): Promise<unknown[]> {
  const isLive = scope.live(cut)
  return walk<IDBCursorWithValue, unknown>(source.openCursor(query), limit, (c) =>
    isLive(c.value) ? c.value : undefined,
  )
}

/**
 * A point read by primary key in one promise, the hot path: judged by the settings the realm
 * holds, or else by the settings request issued first in the same transaction, which has
 * completed when the item's request does.
 */
export function getByKey(db: IDBDatabase, storeName: string, key: IDBValidKey, clock: () => number, reading: Reading): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const held = heldSettings(db.name, storeName)
    const ticket = held ? undefined : settingsTicket(db.name)
    const tx = db.transaction(held ? storeName : [storeName, META_STORE], 'readonly')
    const read = held ? undefined : tx.objectStore(META_STORE).get(storeName)
    const store = tx.objectStore(storeName)
    const request = store.get(key)
    request.onerror = () => reject(request.error)
    request.onsuccess = () => {
      const value = request.result
      const now = clock()
      const state = held ?? read!.result
      if (!held) settingsRead(db.name, ticket, storeName, state)
      const sliding = slides(db.name, storeName)
      const mark = sliding ? owedMark(db.name, storeName, value) : markOfStored(value)
      if (value === undefined || isDeadMark(mark, cutoffs(state, now))) return resolve(undefined)
      const owed = sliding ? reading.touches?.touch(storeName, [value], now, state) : undefined
      const elsewhere = refOf(value) !== undefined && hasGenerations(store)
      if (!owed && !elsewhere) return resolve(unstamp(value))
      void (async () => {
        await owed
        // As in ReadScope.out: a handle without generations never reads such a store.
        const [full] = elsewhere ? await reading.generations!.resolve(db.name, storeName, [value]) : [value]
        return unstamp(full)
      })().then(resolve, reject)
    }
  })
}

/** Live values in key order; when dead ones took places under `count`, walk a cursor instead. */
export async function getMany(scope: ReadScope, source: Source, query: Query, count?: number): Promise<unknown[]> {
  const values = await req(source.getAll(query ?? undefined, count))
  const cut = await scope.cut()
  let kept = values.filter(scope.live(cut))
  if (count && values.length === count && kept.length < count) kept = await liveValues(scope, source, query, count, cut)
  return scope.out(kept)
}

/** Live items in the scope's store, the dead counted by the expiry index (an index's entries: `index-reads.ts`). */
export async function countLive(scope: ReadScope, query: Query): Promise<number> {
  const total = await req(scope.store.count(query ?? undefined))
  const cut = await scope.cut()
  return total - (await scope.deadCount(cut, query))
}

/** What `db.stats` reports of a store. */
export interface StoreStats {
  /** Live items. */
  live: number
  /** Expired items the purge has not deleted yet. */
  expiredOnDisk: number
  /** When the next live item expires (epoch ms); `Infinity` when none will. */
  nextExpiryMs: number
}
