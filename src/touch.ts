/**
 * Sliding expiry (`touchOnRead`, SPEC §7): a read that returns a live item restarts its
 * countdown as if the item had been written at the read's `now`. Reads stay read-only: touches
 * wait here and are written in batches, while this connection's reads judge touched items by
 * their touch. A touch is written before the item's old expiry comes near (another tab's purge
 * could take the item then), before this connection's purge slices, and when it closes.
 */
import { MARK_FIELD, META_STORE } from './expiry-index.js'
import { isDeadMark, markExpiryMs, markOf, type ExpiryMark, type StoreState } from './policy.js'
import { done, keyId, keyPathValue, req } from './request.js'
import { markOfStored } from './stamp.js'
import { itemTtl, stampOf } from './ttl.js'
import { learn } from './watermarks.js'

/** A touch is written at the latest this long before the item's old expiry (clock skew, latency). */
export const URGENT_MS = 2_000
/** …and at the latest this long after the read: a page may close without warning. */
export const MAX_DEFER_MS = 1_000

type Item = Record<string, unknown>

/** Every handle's touches, by database: a purge or a write through any handle of the realm writes them first. */
const realm = new Map<string, Set<Touches>>()

/** Writes what every handle of database `dbName` in this realm owes (of `store`, or all stores). */
export async function settleTouches(dbName: string, store?: string): Promise<void> {
  await Promise.all([...(realm.get(dbName) ?? [])].map((touches) => touches.flush(store)))
}

interface Touch {
  key: IDBValidKey
  /** The new `_ts` (seconds). */
  ts: number
  /** The item's `ttl` field when it was read. */
  ttl: unknown
}

/** The touches a connection owes its `touchOnRead` stores. */
export class Touches {
  private readonly pending = new Map<string, Map<string, Touch>>()
  private timer: ReturnType<typeof setTimeout> | undefined
  private due = Infinity

  constructor(
    private readonly dbName: string,
    private readonly connect: () => Promise<IDBDatabase>,
    private readonly keyPaths: ReadonlyMap<string, string | string[]>,
    private readonly onError: (error: unknown) => void,
  ) {
    if (keyPaths.size > 0) realm.set(dbName, (realm.get(dbName) ?? new Set()).add(this))
  }

  /** Whether reads of `store` slide. */
  slides(store: string): boolean {
    return this.keyPaths.has(store)
  }

  /** The mark of a stored value of `store` once its pending touch is written. */
  markOf(store: string, value: unknown): ExpiryMark | undefined {
    const touch = this.find(store, value)
    return touch ? markOf(itemTtl(touch.ttl, 'lenient'), touch.ts, 0) : markOfStored(value)
  }

  private find(store: string, value: unknown): Touch | undefined {
    const keyPath = this.keyPaths.get(store)
    const touches = keyPath === undefined ? undefined : this.pending.get(store)
    if (!touches || keyPath === undefined) return undefined
    const touch = touches.get(keyId(keyPathValue(value, keyPath) as IDBValidKey))
    return touch && touch.ts > ((value as Item)._ts as number) ? touch : undefined
  }

  /**
   * Live values a read of `store` returns at `nowMs` (stored copies, `_ts` included): each is
   * touched, and shows its new `_ts`.
   */
  touch(store: string, values: readonly unknown[], nowMs: number, state: StoreState): void {
    const keyPath = this.keyPaths.get(store)
    if (keyPath === undefined || values.length === 0) return
    const ts = stampOf(nowMs)
    let touches = this.pending.get(store)
    if (!touches) this.pending.set(store, (touches = new Map()))
    let due = nowMs + MAX_DEFER_MS
    for (const value of values as Item[]) {
      const oldExpiry = markExpiryMs(state, this.markOf(store, value))
      const current = this.find(store, value)?.ts ?? (value._ts as number)
      if (ts <= current || oldExpiry === Infinity) continue
      const key = keyPathValue(value, keyPath) as IDBValidKey
      touches.set(keyId(key), { key, ts, ttl: value.ttl })
      value._ts = ts
      due = Math.min(due, oldExpiry - URGENT_MS)
    }
    this.flushBy(due, nowMs)
  }

  private flushBy(dueMs: number, nowMs: number): void {
    if (dueMs >= this.due) return
    clearTimeout(this.timer)
    this.due = dueMs
    this.timer = setTimeout(() => void this.flush(), Math.min(Math.max(dueMs - nowMs, 0), MAX_DEFER_MS))
  }

  /** Writes the pending touches (of `store`, or of all stores); resolves once they committed. */
  async flush(store?: string): Promise<void> {
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
      await write(db, name, taken.map(([, touch]) => touch))
    } finally {
      // A touch that a newer read replaced meanwhile stays for the next flush.
      for (const [id, touch] of taken) if (touches.get(id) === touch) touches.delete(id)
    }
  }

  /** At close: starts writing what is pending on `db`, which stays open until that commits. */
  flushOn(db: IDBDatabase | undefined): void {
    clearTimeout(this.timer)
    if (db) for (const [name, touches] of this.pending) void write(db, name, [...touches.values()]).catch(this.onError)
    this.pending.clear()
    const handles = realm.get(this.dbName)
    handles?.delete(this)
    if (handles?.size === 0) realm.delete(this.dbName)
  }
}

/**
 * Raises the `_ts` of touched items that are still there and not rewritten since. An item that
 * a change of setting has killed meanwhile stays dead: expired stays expired.
 */
async function write(db: IDBDatabase, storeName: string, touches: readonly Touch[]): Promise<void> {
  const tx = db.transaction([storeName, META_STORE], 'readwrite', { durability: 'relaxed' })
  const committed = done(tx)
  committed.catch(() => {})
  const store = tx.objectStore(storeName)
  const state = req<StoreState>(tx.objectStore(META_STORE).get(storeName))
  const values = touches.map((touch) => req<Item | undefined>(store.get(touch.key)))
  const settings = await state
  learn(db.name, storeName, settings)
  const killed = { inherit: settings.deadTs, own: settings.deadExpiry }
  for (const [i, touch] of touches.entries()) {
    const value = await values[i]
    if (!value || (value._ts as number) >= touch.ts || isDeadMark(markOfStored(value), killed)) continue
    const mark = markOf(itemTtl(value.ttl, 'lenient'), touch.ts)
    store.put(mark === undefined ? { ...value, _ts: touch.ts } : { ...value, _ts: touch.ts, [MARK_FIELD]: mark })
  }
  await committed
}
