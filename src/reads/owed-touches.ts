/**
 * The touches owed in this realm, as every handle sees them (sliding expiry, SPEC §7): the
 * handles that owe touches (`touch.ts`: full handles with `touchOnRead` stores) are registered
 * here by database, so that the reads of any handle of the realm, `idb-ttl/core`'s included,
 * count them, work that judges a store by what is on disk has them written first
 * ({@link settleTouches}), and a purge asks every tab for theirs (`settle-tabs.ts`).
 */
import { markOfStored } from '../layout/stamp.js'
import { markOf, type ExpiryMark, type StoreState } from '../rules/policy.js'
import { ttlOf } from '../rules/ttl.js'
import { lockSafe } from '../platform/lock-name.js'

// While a handle owes touches it holds a Web Lock named so, which a purger in any tab sees; it
// asks the holders on the database's bus (topic `settle`) to write them, and waits for the locks to go.
export const owingPrefix = (dbName: string) => `idb-ttl:touching:${lockSafe(dbName)}:`

declare module '../platform/bus.js' {
  interface BusTopics {
    settle: null
  }
}

/** A touch owed: a write of the item at `key` as if at the read's `now`. */
export interface Touch {
  key: IDBValidKey
  /** The new `_ts` (seconds). */
  ts: number
  /** The item's `ttl` field when it was read. */
  ttl: unknown
  /** The read's write order (`ORDER_FIELD`): a touch is a write at the read's `now`. */
  at: number
  /** The settings the read judged the item live by. */
  settings: StoreState
}

/** A handle that owes touches, as the realm asks it. */
export interface Owing {
  /** Whether it slides `store` (declared `touchOnRead`). */
  slides(store: string): boolean
  /** The touch it owes this stored value of `store`, if any. */
  owed(store: string, value: unknown): Touch | undefined
  /** Writes what it owes (of `store`, or of all stores); resolves once that committed. */
  flush(store?: string): Promise<void>
}

/** Every handle's touches, by database: a purge or a write through any handle of the realm writes them first. */
const realm = new Map<string, Set<Owing>>()
/** Registers `handle` as owing touches of database `dbName`; returns the function that removes it. */
export function registerOwing(dbName: string, handle: Owing): () => void {
  realm.set(dbName, (realm.get(dbName) ?? new Set()).add(handle))
  return () => {
    const handles = realm.get(dbName)
    handles?.delete(handle)
    if (handles?.size === 0) realm.delete(dbName)
  }
}

/** Writes what every handle of database `dbName` in this realm owes (of `store`, or all stores). */
export function settleTouches(dbName: string, store?: string): Promise<void> {
  const handles = realm.get(dbName)
  // Not async: every write settles first, and where no handle slides a store it pays no promise chain.
  if (!handles) return Promise.resolve()
  return Promise.all([...handles].map((touches) => touches.flush(store))).then(() => {})
}

/** Whether reads of `store` must count owed touches: some handle of the realm slides it. */
export function slides(dbName: string, store: string): boolean {
  const handles = realm.get(dbName)
  return handles !== undefined && [...handles].some((handle) => handle.slides(store))
}

/** The latest touch any handle of the realm owes this stored value of `store`, if newer than its `_ts`. */
export function owedTouch(dbName: string, store: string, value: unknown): Touch | undefined {
  let latest: Touch | undefined
  for (const handle of realm.get(dbName) ?? []) {
    const touch = handle.owed(store, value)
    if (touch && touch.ts > ((value as Record<string, unknown>)._ts as number) && touch.ts > (latest?.ts ?? -Infinity)) latest = touch
  }
  return latest
}

/** The mark of a stored value of `store` once the touches the realm owes are written. */
export function owedMark(dbName: string, store: string, value: unknown): ExpiryMark | undefined {
  const touch = owedTouch(dbName, store, value)
  return touch ? markOf(ttlOf(touch.ttl, 'lenient')!, touch.ts) : markOfStored(value)
}
