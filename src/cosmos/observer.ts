/**
 * Queues the local writes of a store `syncCosmos` mirrors. A store declared `mirror: true` is
 * queued by every handle from open (`transaction/mirror-queue.ts`): nothing to add. A `keepTs`
 * store that was not declared so is queued from the `syncCosmos` call on, by this handle, for as
 * long as it is open: a write made after `sync.stop()` is still queued, so that no write of a
 * synced store goes unpushed.
 */
import type { TtlDB } from '../assembly/db.js'
import { observeWrites } from '../handle/internal.js'
import { queueObserver } from '../transaction/mirror-queue.js'
import type { Internals } from './internals.js'

const observed = new WeakMap<TtlDB<any>, Set<string>>()

/** Queues the writes of `store` from now on, unless its declaration already does. */
export function queueWritesOf(db: TtlDB<any>, store: string, internals: Internals): void {
  if (internals.config?.mirror === true) return
  const stores = observed.get(db) ?? new Set<string>()
  observed.set(db, stores)
  if (stores.has(store)) return
  stores.add(store)
  observeWrites(db, store, queueObserver(store, internals.clock))
}
