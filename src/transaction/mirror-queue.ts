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

/** Queues the writes of `store`; `clock` stamps each record with its write time. */
export function queueObserver(store: string, clock: () => number): WriteObserver {
  return {
    stores: [OUTBOX_STORE],
    put: (tx, key) => {
      checkId(store, key)
      queue(tx, { store, key, op: 'put', at: clock() })
    },
    delete: (tx, key) => queue(tx, { store, key, op: 'delete', at: clock() }),
  }
}
