/**
 * Queues every local write of a synced store in the outbox, inside the write's own transaction
 * (`hook.ts`). Registered once per handle and store, for as long as the handle is open: a write
 * made after `sync.stop()` is still queued, so that no write of a synced store goes unpushed. A
 * write of an id Cosmos DB cannot store is refused (`ids.ts`).
 */
import type { TtlDB } from '../db.js'
import { OUTBOX_STORE } from '../layout/sync-stores.js'
import { observeWrites } from '../handle/internal.js'
import { checkId } from './ids.js'
import { queue } from './outbox.js'

const observed = new WeakMap<TtlDB<any>, Set<string>>()

/** Queues the writes of `store` from now on; `clock` stamps each record with its write time. */
export function queueWritesOf(db: TtlDB<any>, store: string, clock: () => number): void {
  const stores = observed.get(db) ?? new Set<string>()
  observed.set(db, stores)
  if (stores.has(store)) return
  stores.add(store)
  observeWrites(db, store, {
    stores: [OUTBOX_STORE],
    put: (tx, key) => {
      // Thrown inside the write's transaction: it aborts, and nothing is written.
      checkId(store, key)
      queue(tx, { store, key, op: 'put', at: clock() })
    },
    delete: (tx, key) => queue(tx, { store, key, op: 'delete', at: clock() }),
  })
}
