/**
 * The `tx` a callback of `db.transaction` receives (SPEC §11): the handle's reads and writes on
 * the stores it names, all in one IndexedDB transaction, judged at one instant by the settings
 * read just before it opened (the transaction does not hold the settings store: `run.ts`). A
 * call made after IndexedDB ended the transaction (the callback awaited something else) is refused with `TRANSACTION_INACTIVE`, which the transaction keeps.
 */
import type { DeletedItem } from '../events/listeners.js'
import { countLive, getMany, ReadScope, type Reading } from '../reads/reads.js'
import { getKeys, getOne } from '../reads/more-reads.js'
import { countIndexed, userIndex } from '../reads/index-reads.js'
import { TtlError } from '../rules/errors.js'
import { explained } from '../rules/refusal.js'
import { TEXTS } from '../rules/full-texts.js'
import type { StoreState } from '../rules/policy.js'
import type { TtlValues } from '../rules/ttl.js'
import type { Changes, Item } from '../writes/write-steps.js'
import type { Observers } from './observers.js'
import { deleteIn, mayConflict, putIn, updateIn, type WriteTarget } from './tx-writes.js'
import { abortQuietly } from '../platform/request.js'

type Key = IDBValidKey
type Query = IDBValidKey | IDBKeyRange | null | undefined

/** What a transaction needs from the handle that runs it. */
export interface TxSetup {
  tx: IDBTransaction
  /** The settings of the named stores, read just before the transaction opened. */
  settings: ReadonlyMap<string, StoreState>
  /** The declared stores the callback may use. */
  stores: readonly string[]
  now: number
  mode: TtlValues
  keepTs: (store: string) => boolean
  /** What the handle's reads bring: its owed touches, its reading of generations. */
  reading: Reading
  /** Observers to tell, or none (writes the observers themselves make). */
  observers: Observers | undefined
}

/** What a committed transaction leaves for the handle to do: wake the purge, report claims, settle touches. */
export class Effects {
  readonly stored = new Map<string, Item[]>()
  readonly claimed = new Map<string, DeletedItem[]>()
  readonly touched: Promise<void>[] = []

  wrote(store: string, stored: Item[], claimed: DeletedItem[]): void {
    append(this.stored, store, stored)
    if (claimed.length > 0) append(this.claimed, store, claimed)
  }
}

/** Adds `items` to those of `store` in `map`. */
function append<T>(map: Map<string, T[]>, store: string, items: readonly T[]): void {
  const all = map.get(store)
  if (all) all.push(...items)
  else map.set(store, [...items])
}

export class Transaction {
  readonly effects = new Effects()
  /** Set once a call found the transaction ended by IndexedDB. */
  inactive: TtlError | undefined
  /** The error of a call that aborted the transaction to leave nothing of itself written. */
  abandoned: { error: unknown } | undefined
  private ended: 'committed' | 'aborted' | undefined
  /** The calls made but not started, in the order made: they start in that order (see {@link inTurn}). */
  private readonly waiting: Call[] = []
  /** Calls started and not settled: reads, and writes that have not made all their requests yet. */
  private readonly open = { calls: 0, reads: 0, unissued: 0 }

  constructor(private readonly setup: TxSetup) {
    const { tx } = setup
    tx.addEventListener('complete', () => (this.ended = 'committed'))
    tx.addEventListener('abort', () => (this.ended = 'aborted'))
  }

  /** The underlying IndexedDB transaction: the physical view, as `db.raw` is. */
  get raw(): IDBTransaction {
    return this.setup.tx
  }

  get(store: string, query: Key | IDBKeyRange): Promise<unknown> {
    return this.reading(store, (scope) => getOne(scope, scope.store, query))
  }

  getAll(store: string, query?: Query, count?: number): Promise<unknown[]> {
    return this.reading(store, (scope) => getMany(scope, scope.store, query, count))
  }

  getAllKeys(store: string, query?: Query, count?: number): Promise<Key[]> {
    return this.reading(store, (scope) => getKeys(scope, scope.store, query, count))
  }

  count(store: string, query?: Query): Promise<number> {
    return this.reading(store, (scope) => countLive(scope, query))
  }

  getFromIndex(store: string, index: string, query: Key | IDBKeyRange): Promise<unknown> {
    return this.reading(store, (scope) => getOne(scope, userIndex(scope, index), query))
  }

  getAllFromIndex(store: string, index: string, query?: Query, count?: number): Promise<unknown[]> {
    return this.reading(store, (scope) => getMany(scope, userIndex(scope, index), query, count))
  }

  getAllKeysFromIndex(store: string, index: string, query?: Query, count?: number): Promise<Key[]> {
    return this.reading(store, (scope) => getKeys(scope, userIndex(scope, index), query, count))
  }

  countFromIndex(store: string, index: string, query?: Query): Promise<number> {
    return this.reading(store, (scope) => countIndexed(scope, userIndex(scope, index), query))
  }

  async put(store: string, value: unknown, key?: Key): Promise<Key> {
    return (await this.writing(store, true, (target) => putIn(target, [value], 'put', [key], () => `store "${store}"`)))[0]
  }

  putAll(store: string, values: readonly unknown[]): Promise<Key[]> {
    return this.writing(store, true, (target) => {
      if (!Array.isArray(values)) throw new TtlError('INVALID_VALUE', `store "${store}": putAll takes an array of values`)
      return putIn(target, values, 'put', undefined, (i) => `store "${store}", item ${i}`)
    })
  }

  async add(store: string, value: unknown, key?: Key): Promise<Key> {
    return (await this.writing(store, false, (target) => putIn(target, [value], 'add', [key], () => `store "${store}"`)))[0]
  }

  update(store: string, key: Key, changes: Changes): Promise<Item> {
    return this.writing(store, false, (target) => updateIn(target, key, changes))
  }

  /** Rewrites the live item at `key` unchanged, restarting its countdown. */
  touch(store: string, key: Key): Promise<Item> {
    return this.update(store, key, {})
  }

  delete(store: string, query: Key | IDBKeyRange): Promise<void> {
    return this.writing(store, true, (target) => deleteIn(target, query))
  }

  clear(store: string): Promise<void> {
    return this.writing(store, true, (target) => deleteIn(target, null))
  }

  /** The settings of `store`, as read for the transaction. */
  private stateOf(store: string): Promise<StoreState> {
    return Promise.resolve(this.setup.settings.get(store) as StoreState)
  }

  private reading<T>(store: string, read: (scope: ReadScope) => Promise<T>): Promise<T> {
    return this.inTurn('read', () => this.guard(store, (objectStore) => read(this.scope(store, objectStore))))
  }

  /**
   * Runs `call` once the calls made before it that it must follow are far enough (SPEC §11: calls
   * issued together behave as if issued one after another). IndexedDB runs a transaction's
   * requests in the order they were made, so what matters is when each call makes its requests:
   * - a `'read'` starts once every earlier write has made all its requests; reads overlap;
   * - a `'put'`, a write that makes all its requests at once and never reads (see
   *   {@link pipelined}), starts once earlier reads settled and earlier writes made theirs: a
   *   `Promise.all` of puts costs one round trip, not one per put;
   * - a `'write'` of several steps (a read, then a write: `update`, `add`, claims, observers)
   *   starts once every earlier call settled, and every later one waits for it to settle: two
   *   updates of one item would otherwise both read the old item.
   * Kept as counts, not chains of promises: a call with nothing to wait for (a put after puts)
   * starts at once, in the caller's task, and costs no promise of its own beyond its result.
   */
  private inTurn<T>(kind: Kind, call: () => Promise<T>): Promise<T> {
    if (this.waiting.length === 0 && this.mayStart(kind)) return this.start(kind, call)
    return new Promise<T>((resolve, reject) => this.waiting.push({ kind, go: () => this.start(kind, call).then(resolve, reject) }))
  }

  /**
   * Whether a `kind` call may start, given the calls started. Waiting calls start in the order
   * they were made: one that must wait holds back every later one, which would wait for it (a
   * read, for a write before it) or for what it waits for.
   */
  private mayStart(kind: Kind): boolean {
    const { calls, reads, unissued } = this.open
    return kind === 'read' ? unissued === 0 : kind === 'put' ? reads === 0 && unissued === 0 : calls === 0
  }

  private start<T>(kind: Kind, call: () => Promise<T>): Promise<T> {
    const open = this.open
    open.calls++
    if (kind === 'read') open.reads++
    else open.unissued++
    let result: Promise<T>
    try {
      result = call()
    } catch (error) {
      result = Promise.reject(error)
    }
    // A put made all its requests once `call` returned; a write of several steps, once it settled.
    if (kind === 'put') open.unissued--
    const settled = () => {
      open.calls--
      if (kind === 'read') open.reads--
      else if (kind === 'write') open.unissued--
      while (this.waiting.length > 0 && this.mayStart(this.waiting[0].kind)) this.waiting.shift()!.go()
    }
    result.then(settled, settled)
    return result
  }

  /** Whether puts and deletes of `store` make every request at once and read nothing ({@link inTurn}'s `'put'`). */
  private pipelined(store: string): boolean {
    return (this.setup.observers?.of(store).length ?? 0) === 0 && !this.putsConflict(store)
  }

  /**
   * Whether puts of `store` may be refused for a holder (`mayConflict`): asked once per connection,
   * whose stores' indexes do not change while it is open (only an upgrade changes them, on a
   * connection of its own version).
   */
  private putsConflict(store: string): boolean {
    const { tx } = this.setup
    let known = conflictsOf.get(tx.db)
    let conflicts = known?.get(store)
    if (conflicts !== undefined) return conflicts
    try {
      conflicts = mayConflict(tx.objectStore(store), 'put')
    } catch {
      // A store the transaction does not name, or a transaction that has ended: the call, run in
      // turn, says which.
      return true
    }
    if (!known) conflictsOf.set(tx.db, (known = new Map()))
    known.set(store, conflicts)
    return conflicts
  }

  /** Reads of `store` in the transaction, at its instant; touches they owe are written after the commit. */
  private scope(store: string, objectStore: IDBObjectStore): ReadScope {
    const owe = (touched: Promise<void>) => void this.effects.touched.push(touched)
    return new ReadScope(objectStore, this.stateOf(store), this.setup.now, this.setup.reading, owe)
  }

  /** A write of `store`; `simple`: one that {@link pipelined} stores may run as a `'put'`. */
  private writing<T>(store: string, simple: boolean, write: (target: WriteTarget) => Promise<T>): Promise<T> {
    const { now, mode, keepTs, observers } = this.setup
    const kind = simple && this.pipelined(store) ? 'put' : 'write'
    return this.inTurn(kind, () => this.guard(store, (objectStore) =>
      write({
        store: objectStore,
        state: () => this.stateOf(store),
        now,
        mode,
        keepTs: keepTs(store),
        observers: observers?.of(store) ?? [],
        putsConflict: this.putsConflict(store),
        wrote: (stored, claimed) => this.effects.wrote(store, stored, claimed),
        liveKeys: (query) => getKeys(this.scope(store, objectStore), objectStore, query ?? undefined),
        abandon: (error) => {
          this.abandoned ??= { error }
          abortQuietly(this.setup.tx)
        },
      }),
    ))
  }

  /**
   * Runs a call on `store`, turning IndexedDB's "this transaction has ended" into `TRANSACTION_INACTIVE`,
   * and a refusal of its checks (`layout/stamp.ts`) into its words at once: the transaction would
   * end while they loaded, so this chunk imports them.
   */
  private async guard<T>(store: string, call: (objectStore: IDBObjectStore) => Promise<T>): Promise<T> {
    if (!this.setup.stores.includes(store)) {
      const named = this.setup.stores.map((name) => `"${name}"`).join(', ')
      throw new TtlError('UNKNOWN_STORE', `"${String(store)}" is not a store of this transaction (it names ${named})`)
    }
    if (this.abandoned) throw this.abandoned.error
    if (this.inactive) throw this.inactive
    try {
      return await call(this.setup.tx.objectStore(store))
    } catch (error) {
      throw explained(this.asInactive(store, error), TEXTS)
    }
  }

  /** `error` in its words, where it is a refusal of the checks a write makes (the mirror's pull checks its copies so). */
  words(error: unknown): unknown {
    return explained(error, TEXTS)
  }

  private asInactive(store: string, error: unknown): unknown {
    const name = (error as DOMException | null)?.name
    if (name !== 'TransactionInactiveError' && name !== 'InvalidStateError') return error
    // After an abort, the failure that caused it is what the callback hears (IndexedDB's own).
    if (this.ended === 'aborted') return this.setup.tx.error ?? error
    this.inactive ??= new TtlError(
      'TRANSACTION_INACTIVE',
      `store "${store}": the transaction had already ended: IndexedDB commits it once the callback awaits something other than the transaction's own calls`,
    )
    return this.inactive
  }
}

type Kind = 'read' | 'put' | 'write'

/** Per connection and store, whether its puts may be refused for a holder ({@link Transaction}'s `putsConflict`). */
const conflictsOf = new WeakMap<IDBDatabase, Map<string, boolean>>()

/** A call waiting for its turn; `go` starts it. */
interface Call {
  kind: Kind
  go: () => void
}
