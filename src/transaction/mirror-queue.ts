/**
 * The write observer of a mirrored store (SPEC §12b): every write of it is queued in the outbox
 * (`layout/outbox.ts`) inside the write's own transaction, and a write of an id Cosmos DB cannot
 * store is refused there (thrown inside the transaction: it aborts, and nothing is written).
 * Every handle installs it at open for the stores declared `mirror: true`; `idb-ttl/cosmos`
 * installs it from `syncCosmos` on for a `keepTs` store that was not declared so.
 */
import { checkId } from '../rules/cosmos-ids.js'
import { queue } from '../layout/outbox.js'
import { OUTBOX_STORE } from '../layout/sync-stores.js'
import type { WriteObserver } from './observers.js'

/** Where and when a record was queued, or a scope change was asked: see {@link queueStamp}. */
export interface QueueStamp {
  /** Names the connection, across tabs (drawn at its first stamp). */
  writer: number
  stamp: number
}

/** The last stamp given, per connection clock (a handle's). */
const latest = new WeakMap<() => number, QueueStamp>()

/**
 * The connection (named by its clock) and `clock()`, made strictly greater than every stamp the
 * connection gave before: of two records of one connection, or a record and a scope change
 * (`idb-ttl/cosmos`), one is after the other however fast the calls come. Stamps of two
 * connections (two tabs) are never compared: their clocks tie within a millisecond.
 */
export function queueStamp(clock: () => number): QueueStamp {
  const now = clock()
  const { writer, stamp } = latest.get(clock) ?? { writer: Math.random(), stamp: -Infinity }
  const next = { writer, stamp: now > stamp ? now : stamp + 1 / 1024 }
  latest.set(clock, next)
  return next
}

/** Queues the writes of `store`; each record is stamped with its write time and its {@link queueStamp}. */
export function queueObserver(store: string, clock: () => number): WriteObserver {
  const record = (key: IDBValidKey, op: 'put' | 'delete') => ({ store, key, op, at: clock(), ...queueStamp(clock) })
  return {
    stores: [OUTBOX_STORE],
    put: (tx, key) => {
      checkId(store, key)
      queue(tx, record(key, 'put'))
    },
    delete: (tx, key) => queue(tx, record(key, 'delete')),
  }
}
