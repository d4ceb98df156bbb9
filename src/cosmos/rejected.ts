/**
 * Records the server refused for themselves (SPEC §12b: an `id` it cannot take, a body over its
 * size limit, a unique-key clash): set aside, so that the records queued after them are still
 * pushed, and kept in the database (`SYNC_STORE`, `[store, 'rejected', key]`) with the server's
 * answer until the app retries or discards them, or a later write of the key is pushed; a pull
 * leaves the local item alone meanwhile, as it does a queued one. Functions over an open transaction that holds
 * `SYNC_STORE` (and `OUTBOX_STORE` where they queue).
 */
import { SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'
import { queue, type OutboxRecord } from '../layout/outbox.js'
import { queuedAt } from './outbox.js'
import { statusOf } from './remote.js'
import type { Rejected } from './types.js'

/** Statuses by which the server refuses a record for itself: retrying it as it is cannot help. */
const REFUSALS = [400, 409, 413]

/** Whether `error` is the server refusing the record itself (the record is set aside). */
export function isRefusal(error: unknown): boolean {
  return REFUSALS.includes(statusOf(error) as number)
}

const rejectedKey = (store: string, key: IDBValidKey) => [store, 'rejected', key]
const allOf = (store: string) => IDBKeyRange.bound([store, 'rejected'], [store, 'rejected', []])

/** Sets `record` aside with the server's answer `error`. */
export function setAside(tx: IDBTransaction, record: OutboxRecord, error: unknown): void {
  const { message = String(error) } = (error ?? {}) as Error
  const rejected: Rejected = { key: String(record.key), op: record.op, at: record.at, status: statusOf(error) as number, message }
  keepRejected(tx, record.store, rejected)
}

/** Keeps `rejected` set aside again, as it was (a write parked with another scope, `scope.ts`). */
export function keepRejected(tx: IDBTransaction, store: string, rejected: Rejected): void {
  tx.objectStore(SYNC_STORE).put(rejected, rejectedKey(store, rejected.key))
}

/** The records of `store` set aside, by key. */
export async function listRejected(tx: IDBTransaction, store: string): Promise<Rejected[]> {
  return req(tx.objectStore(SYNC_STORE).getAll(allOf(store))) as Promise<Rejected[]>
}

export function countRejected(tx: IDBTransaction, store: string): Promise<number> {
  return req(tx.objectStore(SYNC_STORE).count(allOf(store)))
}

export function readRejected(tx: IDBTransaction, store: string, key: IDBValidKey): Promise<Rejected | undefined> {
  return req(tx.objectStore(SYNC_STORE).get(rejectedKey(store, key)))
}

/** Forgets the record of `key` set aside, if any. */
export function dropRejected(tx: IDBTransaction, store: string, key: IDBValidKey): void {
  tx.objectStore(SYNC_STORE).delete(rejectedKey(store, key))
}

/**
 * Queues the record of `key` set aside again (in `tx`, which also holds the outbox), as written
 * when it was; where a later write of the key is queued, that one goes instead.
 */
export async function requeue(tx: IDBTransaction, store: string, key: IDBValidKey): Promise<boolean> {
  const [rejected, later] = await Promise.all([readRejected(tx, store, key), queuedAt(tx, store, key)])
  if (!rejected) return false
  dropRejected(tx, store, key)
  if (!later) queue(tx, { store, key, op: rejected.op, at: rejected.at })
  return true
}
