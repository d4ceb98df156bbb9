/**
 * The outbox's write side: a write of a mirrored store queues its record inside its own
 * transaction, so the write and its record commit together or not at all (a crash, a reload,
 * a full disk: either both are on disk or neither). One record per store and key: a later write
 * replaces the earlier one's record under a new, higher number, and the push sends the item as
 * it is then, so ten edits of one item offline cost one request. The push (`idb-ttl/cosmos`)
 * reads and removes them.
 */
import { OUTBOX_BY_KEY, OUTBOX_STORE } from './sync-stores.js'

/** A queued write: the item at `key` was written (`put`) or deleted at `at` (epoch ms). */
export interface OutboxRecord {
  store: string
  key: IDBValidKey
  op: 'put' | 'delete'
  at: number
  /** The connection that queued it (`transaction/mirror-queue.ts` `queueStamp`); absent in records of older versions and brought back from parking. */
  writer?: number
  /** Orders the record against a scope change asked by the same connection (`queueStamp`). */
  stamp?: number
}

/** Queues `record` in `tx` (which holds the outbox), replacing the key's earlier record. */
export function queue(tx: IDBTransaction, record: OutboxRecord): void {
  const outbox = tx.objectStore(OUTBOX_STORE)
  const earlier = outbox.index(OUTBOX_BY_KEY).getKey([record.store, record.key])
  earlier.onsuccess = () => {
    if (earlier.result !== undefined) outbox.delete(earlier.result)
    outbox.add(record)
  }
}
