/**
 * Sliding expiry (`touchOnRead`, SPEC §7): a read that returns a live item restarts its
 * countdown as if the item had been written at the read's `now`. Reads stay read-only: touches
 * wait here and are written in batches, while the reads of every handle of the realm judge
 * touched items by their touch (`owed-touches.ts`, where these handles are registered). A touch
 * is written before the item's old expiry comes near (another tab's purge could take the item
 * then), before this connection's purge slices, and when it closes. Only full handles owe
 * touches (`idb-ttl/core` refuses `touchOnRead`), and only those that declare it load this module:
 * their open loads it first (`assembly/open-full.ts`, issue #44). What it uses of the realm (the
 * handles that owe, the settings held, the write order) comes from the handle (`touched.ts`),
 * never from a module of its own: a chunk loaded later may be another copy's.
 */
import type { Member } from '../platform/bus.js'
import { holdLock, uniqueId, webLocks, withLock } from '../platform/lock.js'
import { lockName } from '../layout/held-settings.js'
import { META_STORE } from '../layout/expiry-index.js'
import { cutoffs, isDeadMark, markExpiryMs, type StoreState } from '../rules/policy.js'
import { done, keyId, keyPathValue, req } from '../platform/request.js'
import { markOfStored } from '../layout/stamp.js'
import { stampOf } from '../rules/ttl.js'
import { owingPrefix, type Owing, type Touch } from './owed-touches.js'
import type { TouchRealm } from './touched.js'

/** A touch is written at the latest this long before the item's old expiry (clock skew, latency). */
const URGENT_MS = 2_000
/** …and at the latest this long after the read: a page may close without warning. */
export const MAX_DEFER_MS = 1_000

type Item = Record<string, unknown>

/** The touches a connection owes its `touchOnRead` stores. */
export class Touches implements Owing {
  private readonly pending = new Map<string, Map<string, Touch>>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private due = Infinity
  private owing: (() => void) | undefined
  /** Resolves once the owing lock is held: a purge that starts after that sees it. */
  private held: Promise<void> | undefined
  private readonly asked: Member | undefined
  /** Set at close: the writes of what was owed then, on the closing connection (see {@link flushOn}). */
  private closing: Promise<void> | undefined
  private readonly leave: (() => void) | undefined

  /**
   * `onTouched` hears of the stores whose items a read touched (`written: false`: owed, counted
   * by this page's reads) and of those whose touches were written (`written: true`): live
   * queries read again, as after any change of `_ts`. `realm`: the registries of the handle's
   * realm (`touched.ts`).
   */
  constructor(
    private readonly realm: TouchRealm,
    private readonly dbName: string,
    private readonly connect: () => Promise<IDBDatabase>,
    private readonly clock: () => number,
    private readonly keyPaths: ReadonlyMap<string, string | string[]>,
    private readonly onError: (error: unknown) => void,
    private readonly onTouched: (store: string, written: boolean) => void = () => {},
  ) {
    if (keyPaths.size === 0) return
    this.leave = realm.registerOwing(dbName, this)
    this.asked = realm.joinBus(dbName).on('settle', () => void this.flush())
  }

  /** Holds the owing lock while touches are pending, and lets it go once none are. */
  private owe(): void {
    // Closed: the owing lock goes with the closing writes (flushOn).
    if (this.closing) return
    const pending = [...this.pending.values()].some((touches) => touches.size > 0)
    if (pending && !this.owing) {
      const lock = holdLock(`${owingPrefix(this.dbName)}${uniqueId()}`)
      this.held = lock?.granted
      this.owing = lock?.release
    } else if (!pending && this.owing) {
      this.owing()
      this.owing = this.held = undefined
    }
  }

  slides(store: string): boolean {
    return this.keyPaths.has(store)
  }

  owed(store: string, value: unknown): Touch | undefined {
    const keyPath = this.keyPaths.get(store)
    const touches = keyPath === undefined ? undefined : this.pending.get(store)
    return touches?.get(keyId(keyPathValue(value, keyPath!) as IDBValidKey))
  }

  /**
   * Live values a read of `store` returns at `nowMs` (stored copies, `_ts` included): each is
   * touched, and shows its new `_ts`. The read returns once the returned promise resolves: then
   * a purge in any tab knows that this handle owes touches (it asks for them first).
   */
  touch(store: string, values: readonly unknown[], nowMs: number, state: StoreState): Promise<void> | undefined {
    const keyPath = this.keyPaths.get(store)
    if (keyPath === undefined || values.length === 0) return
    const ts = stampOf(nowMs)
    let touches = this.pending.get(store)
    if (!touches) this.pending.set(store, (touches = new Map()))
    let due = nowMs + MAX_DEFER_MS
    let news = false
    const { owedMark, owedTouch, writeOrder } = this.realm
    for (const value of values as Item[]) {
      const oldExpiry = markExpiryMs(state, owedMark(this.dbName, store, value))
      const current = owedTouch(this.dbName, store, value)?.ts ?? (value._ts as number)
      // A touch already owed (by any handle) shows too: a later read never goes back to the stored _ts.
      value._ts = current
      // Items that never expire under the settings in force are touched too: a later default
      // (or TTL turned on again) counts from the read (SPEC §7: every read restarts the countdown).
      if (ts <= current) continue
      const key = keyPathValue(value, keyPath) as IDBValidKey
      touches.set(keyId(key), { key, ts, ttl: value.ttl, at: writeOrder(nowMs), settings: state })
      value._ts = ts
      due = Math.min(due, oldExpiry - URGENT_MS)
      news = true
    }
    this.owe()
    this.flushBy(due, nowMs)
    if (news) this.onTouched(store, false)
    return this.held
  }

  private flushBy(dueMs: number, nowMs: number): void {
    if (dueMs >= this.due) return
    clearTimeout(this.timer)
    this.due = dueMs
    this.timer = setTimeout(() => void this.flush(), Math.min(Math.max(dueMs - nowMs, 0), MAX_DEFER_MS))
  }

  /** Writes the pending touches (of `store`, or of all stores); resolves once they committed. */
  async flush(store?: string): Promise<void> {
    // Closed: what it owed is being written on the closing connection, and that is what to wait for.
    if (this.closing) return this.closing
    if (store === undefined) {
      clearTimeout(this.timer)
      this.due = Infinity
    }
    const stores = [...this.pending].filter(([name, touches]) => touches.size > 0 && (store === undefined || name === store))
    if (stores.length === 0) return
    try {
      const db = await this.connect()
      await Promise.all(stores.map(([name, touches]) => this.settle(db, name, touches)))
    } catch (error) {
      // Lost touches only mean the items expire at their previous time, as after a page close.
      this.onError(error)
    }
  }

  /** Writes these touches, and forgets them once committed (reads count them until then). */
  private async settle(db: IDBDatabase, name: string, touches: Map<string, Touch>): Promise<void> {
    const taken = [...touches]
    try {
      await write(this.realm, db, name, taken.map(([, touch]) => touch), this.clock)
      this.onTouched(name, true)
    } finally {
      // A touch that a newer read replaced meanwhile stays for the next flush.
      for (const [id, touch] of taken) if (touches.get(id) === touch) touches.delete(id)
      this.owe()
    }
  }

  /**
   * At close: starts writing what is pending on `db`, which stays open until that commits. Until
   * then the realm's reads still count these touches (a read already under way judges by them)
   * and work that settles waits for the writes.
   */
  flushOn(db: IDBDatabase | undefined): void {
    clearTimeout(this.timer)
    const writes = db ? [...this.pending].map(([name, touches]) => write(this.realm, db, name, [...touches.values()], this.clock, true).catch(this.onError)) : []
    this.asked?.leave()
    // The lock goes once the last touches committed: a purger waiting for it then finds them.
    const release = this.owing
    this.owing = undefined
    this.closing = Promise.all(writes).then(() => {
      this.pending.clear()
      release?.()
      this.leave?.()
    })
  }
}

/**
 * Raises the `_ts` of touched items that are still there and not rewritten since. An item that
 * a change of setting has killed meanwhile stays dead: expired stays expired. That is what the
 * watermarks say was dead when the setting changed, and, once the settings are not the ones the
 * read judged by (another tab changed them: this one writes its touches first), whatever is dead
 * now under the new ones (a shorter default kills what its read saw live). Settings unchanged,
 * an item past its old expiry is touched still: its read made it live longer (SPEC §7).
 *
 * The settings are read first, not in the touches' transaction, which holds only the data store:
 * reads of other stores, which read the settings too, would wait for it and for whatever it waits
 * for (SPEC §11). The settings lock, held shared meanwhile, keeps changes out until it commits.
 * `closing`: the connection closes next, so the transaction opens at once, judged by the settings
 * the realm holds, or, holding none, by those it reads in its own transaction.
 */
async function write(realm: TouchRealm, db: IDBDatabase, storeName: string, touches: readonly Touch[], clock: () => number, closing = false): Promise<void> {
  if (closing) return writeJudged(realm, db, storeName, touches, clock, realm.heldSettings(db.name, storeName))
  await whileSettingsHeld(db.name, async () => writeJudged(realm, db, storeName, touches, clock, (await realm.readSettings(db, [storeName])).get(storeName)))
}

/**
 * Runs `run`, which judges by settings it reads and then writes by them in a transaction without
 * the settings store, holding the settings lock of database `name` shared (`held-settings.ts`): no
 * change of settings commits in between, unless one waited `LEASE_MS` for it and took the lock.
 * Without Web Locks it just runs.
 */
function whileSettingsHeld<T>(name: string, run: () => Promise<T>): Promise<T> {
  const locks = webLocks()
  return locks ? withLock(locks, lockName(name), run, { mode: 'shared' }) : run()
}

/** {@link write}'s transaction, judged by `settings`, or by those it reads itself. */
async function writeJudged(realm: TouchRealm, db: IDBDatabase, storeName: string, touches: readonly Touch[], clock: () => number, settings: StoreState | undefined): Promise<void> {
  const tx = db.transaction(settings ? storeName : [storeName, META_STORE], 'readwrite', { durability: 'relaxed' })
  const committed = done(tx)
  committed.catch(() => {})
  const store = tx.objectStore(storeName)
  const state = settings ?? realm.settingsIn(tx, storeName, undefined)
  const values = touches.map((touch) => req<Item | undefined>(store.get(touch.key)))
  const judged = await state
  const killed = { inherit: judged.deadTs, own: judged.deadExpiry }
  const deadNow = cutoffs(judged, clock())
  for (const [i, touch] of touches.entries()) {
    const value = await values[i]
    if (!value || (value._ts as number) >= touch.ts) continue
    const mark = markOfStored(value)
    if (isDeadMark(mark, killed) || (changed(touch.settings, judged) && isDeadMark(mark, deadNow))) continue
    store.put(realm.touched(value, touch))
  }
  await committed
}

/** Whether the settings of a store are not those `before` was (a default or a watermark moved). */
function changed(before: StoreState, now: StoreState): boolean {
  return before.defaultTtl !== now.defaultTtl || before.deadTs !== now.deadTs || before.deadExpiry !== now.deadExpiry
}
