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

/** The last stamp given, per connection clock. */
const latest = new WeakMap<() => number, number>()

/**
 * `clock()`, made strictly greater than every stamp given before by the same clock (a handle's):
 * two records, or a record and a scope change (`idb-ttl/cosmos`), are never at the same instant,
 * so that "queued after the switch" is exact however fast the calls come.
 */
export function queueStamp(clock: () => number): number {
  const now = clock()
  const last = latest.get(clock) ?? -Infinity
  const stamp = now > last ? now : last + 1 / 1024
  latest.set(clock, stamp)
  return stamp
}

/** Queues the writes of `store`; each record is stamped with its write time and its {@link queueStamp}. */
export function queueObserver(store: string, clock: () => number): WriteObserver {
  const record = (key: IDBValidKey, op: 'put' | 'delete') => ({ store, key, op, at: clock(), stamp: queueStamp(clock) })
  return {
    stores: [OUTBOX_STORE],
    put: (tx, key) => {
      checkId(store, key)
      queue(tx, record(key, 'put'))
    },
    delete: (tx, key) => queue(tx, record(key, 'delete')),
  }
}
