/**
 * The settings of each store that this realm (page or worker) holds in memory, so that a read
 * needs no read of the settings beside its item's (issue #33: `get` at the cost of a raw get),
 * and a write stamps above their exact watermarks without one (`writes/writes.ts`).
 * Exactness (SPEC §3: a default changed in another tab applies to the next read here) rests on a
 * Web Lock: a copy is trusted only while the realm holds `idb-ttl:settings:<db>` shared, and a
 * change of settings (`changingSettings`, `settings-change.ts`) asks every realm on the database's bus to let
 * its copies and its lock go, then writes holding that lock exclusively. No realm trusts a copy
 * while a change commits; the next read after it reads the settings again, with its item.
 *
 * A realm that cannot answer (a tab frozen in the background) would keep the change waiting: no
 * copy is trusted longer than {@link LEASE_MS} after it was read, and a change that waited that
 * long takes the lock from whoever holds it (`steal`), whose copies have expired by then.
 * Without Web Locks (Node, old browsers) the realm holds nothing: every read reads the settings,
 * and writes stamp above the watermarks the realm knows.
 *
 * The watermarks (what changes of setting left dead for good, SPEC §3) the realm knows of each
 * store are kept here too, whether or not it holds the settings, so that writes stamp above them
 * without reading the settings (SPEC §6: a write is never born dead): writes where the realm holds
 * no settings (no Web Locks), writes in a transaction (which read or hold them just before), and
 * values stashed in generations before their rows' transaction reads them. Watermarks only grow,
 * so the largest seen is the freshest: every connection of the realm shares what any of them read,
 * and a change made in another tab arrives on the database's bus (topic `watermarks`). Both are
 * kept only while a handle of the database is open.
 */
import { joinBus, type Member } from '../platform/bus.js'
import type { holdLock, HeldLock } from '../platform/lock.js'
import { higher, type StoreState } from '../rules/policy.js'
import { META_STORE } from './expiry-index.js'
import { req } from '../platform/request.js'
import { lockSafe } from '../platform/lock-name.js'

/** The part of a store's settings that a write must stay above. */
export type Watermarks = Pick<StoreState, 'deadTs' | 'deadExpiry'>

declare module '../platform/bus.js' {
  interface BusTopics {
    /** A change of settings is waiting: let copies and the shared lock go. */
    settings: Record<string, never>
    /** A change of setting raised the watermarks of `store`. */
    watermarks: Watermarks & { store: string }
  }
}

/** How long a copy is trusted after it was read (ms of `performance.now()`, which runs on while a tab is frozen). */
export const LEASE_MS = 5000

interface Copy {
  state: StoreState
  readAt: number
}

interface Held {
  handles: number
  member: Member
  /** The shared lock, asked for or held; `undefined`: let go, asked for again by the next read. */
  lock: HeldLock | undefined
  holding: boolean
  /** Bumped whenever `holding` changes: a read keeps what it read only if no change came between. */
  epoch: number
  copies: Map<string, Copy>
  /** The watermarks known of each store, held or not. */
  marks: Map<string, Watermarks>
}

const NONE: Watermarks = { deadTs: null, deadExpiry: null }
const databases = new Map<string, Held>()

/**
 * What holds the shared lock (`platform/lock.ts`), as an entry loads it: `idb-ttl/core`'s first load
 * carries none of it (issue #44), and its realm holds no settings until it has loaded. Until then
 * every read reads the settings with its item, as where there are no Web Locks.
 */
export type LoadLocks = () => Promise<{ holdLock: typeof holdLock }>
let locks: { holdLock: typeof holdLock } | undefined

/** Whether the origin has Web Locks (`lock.ts`' `webLocks`, asked without loading it). */
const webLocks = () => typeof navigator !== 'undefined' && navigator.locks !== undefined
/** The settings lock of database `name`. */
export const lockName = (name: string) => `idb-ttl:settings:${lockSafe(name)}`

/**
 * Lets every copy of database `name` go, with the shared lock: a change of settings asked for
 * it, or the connection stepped aside for an upgrade or a deletion (the copies may be of a
 * database that is going).
 */
export function forgetSettings(name: string): void {
  const held = databases.get(name)
  if (!held) return
  held.epoch++
  held.holding = false
  held.copies.clear()
  held.lock?.release()
  held.lock = undefined
}

/** Asks for the shared lock, unless asked for already; copies are kept once it is held. */
function arm(name: string, held: Held): void {
  if (held.lock || !locks) return
  const lock = locks.holdLock(
    lockName(name),
    () => {
      if (held.lock !== lock || databases.get(name) !== held) return false
      held.epoch++
      held.holding = true
    },
    'shared',
  )
  held.lock = lock
  // Taken by a change that stopped waiting for this realm (see `changingSettings`): let go too.
  void lock?.ended.then(() => held.lock === lock && forgetSettings(name))
}

/**
 * A handle of database `name` opened: the realm shares watermarks with it, and may hold its
 * settings (with the lock work `loadLocks` brings), until `release` is called.
 */
export function holdSettings(name: string, loadLocks: LoadLocks): () => void {
  let held = databases.get(name)
  if (!held) {
    const member = joinBus(name)
      .on('settings', () => forgetSettings(name))
      .on('watermarks', (message) => learn(name, message.store, message))
    held = { handles: 0, member, lock: undefined, holding: false, epoch: 0, copies: new Map(), marks: new Map() }
    databases.set(name, held)
  }
  held.handles++
  const mine = held
  // Asked for now, while the open is under way: held by the time the open reads the settings, the
  // realm keeps what it read, and the first calls read none. A failed load holds nothing: the reads
  // read the settings, and the next open loads again.
  if (webLocks()) {
    loadLocks()
      .then((loaded) => {
        locks ??= loaded
        if (databases.get(name) === mine) arm(name, mine)
      })
      .catch(() => {})
  }
  let released = false
  return () => {
    if (released) return
    released = true
    if (--mine.handles > 0) return
    forgetSettings(name)
    mine.member.leave()
    databases.delete(name)
  }
}

/**
 * The settings of `store` this realm may judge by without reading them, or `undefined`: read them
 * with the data (and {@link settingsRead}). Asks for the shared lock when the realm has let it go.
 */
export function heldSettings(name: string, store: string): StoreState | undefined {
  const held = databases.get(name)
  if (!held || !webLocks()) return undefined
  arm(name, held)
  const copy = held.holding ? held.copies.get(store) : undefined
  return copy && performance.now() - copy.readAt < LEASE_MS ? copy.state : undefined
}

/**
 * Whether this realm holds the settings of database `name` when it can (Web Locks, a handle
 * open): then a realm without a copy ({@link heldSettings}) may have let it go for a change made
 * elsewhere, whose announcement ({@link announce}) can still be on its way, and a write reads them.
 */
export function keepsSettings(name: string): boolean {
  return databases.has(name) && webLocks()
}

/** What a read that reads the settings notes before it starts, for {@link settingsRead}. */
export interface SettingsTicket {
  epoch: number
  at: number
}

/** Taken before a read's transaction opens; `undefined`: nothing will be kept. */
export function settingsTicket(name: string): SettingsTicket | undefined {
  const held = databases.get(name)
  return held?.holding ? { epoch: held.epoch, at: performance.now() } : undefined
}

/**
 * Settings a read read from the database: the realm learns their watermarks
 * ({@link learn}), and keeps them if it held the lock from before that read (`ticket`) until now.
 */
export function settingsRead(name: string, ticket: SettingsTicket | undefined, store: string, state: StoreState | undefined): void {
  learn(name, store, state)
  const held = databases.get(name)
  if (!ticket || !state || !held || held.epoch !== ticket.epoch) return
  held.copies.set(store, { state, readAt: ticket.at })
}

/** The watermarks known for `store` of database `name`. */
export function knownWatermarks(name: string, store: string): Watermarks {
  return databases.get(name)?.marks.get(store) ?? NONE
}

/** Folds settings read from (or written to) the database into the watermarks the realm knows. */
export function learn(name: string, store: string, state: Watermarks | undefined): void {
  const marks = databases.get(name)?.marks
  if (!marks || !state) return
  const before = marks.get(store) ?? NONE
  marks.set(store, { deadTs: higher(before.deadTs, state.deadTs), deadExpiry: higher(before.deadExpiry, state.deadExpiry) })
}

/** Tells other tabs that a change of setting raised the watermarks of `store`. */
export function announce(name: string, store: string, state: Watermarks): void {
  learn(name, store, state)
  databases.get(name)?.member.post('watermarks', { store, deadTs: state.deadTs, deadExpiry: state.deadExpiry })
}

/**
 * The settings of `stores`, held by the realm (`layout/held-settings.ts`) or read in a read-only
 * transaction of their own and learnt by the realm, for a transaction that must not hold the
 * settings store, which every read holds: a `db.transaction` (`transaction/run.ts`), a write
 * (`writes/writes.ts`), the write of owed touches (`reads/touch.ts`).
 */
export async function readSettings(db: IDBDatabase, stores: readonly string[]): Promise<ReadonlyMap<string, StoreState>> {
  const settings = new Map(stores.map((store) => [store, heldSettings(db.name, store)]))
  const missing = stores.filter((store) => settings.get(store) === undefined)
  if (missing.length > 0) {
    const ticket = settingsTicket(db.name)
    const meta = db.transaction(META_STORE, 'readonly').objectStore(META_STORE)
    const states = await Promise.all(missing.map((store) => req<StoreState>(meta.get(store))))
    missing.forEach((store, i) => {
      settingsRead(db.name, ticket, store, states[i])
      settings.set(store, states[i])
    })
  }
  return settings as ReadonlyMap<string, StoreState>
}

/**
 * The settings of `store` as transaction `tx` (which holds the settings store) reads them, learnt
 * and kept by the realm ({@link settingsRead}, with the `ticket` taken before `tx` opened).
 */
export function settingsIn(tx: IDBTransaction, store: string, ticket: SettingsTicket | undefined): Promise<StoreState> {
  const state = req<StoreState>(tx.objectStore(META_STORE).get(store)).then((state) => {
    settingsRead(tx.db.name, ticket, store, state)
    return state
  })
  // A transaction undone before its caller needed the settings must not report them unhandled.
  state.catch(() => {})
  return state
}
