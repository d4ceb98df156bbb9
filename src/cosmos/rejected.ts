/**
 * Records the server refused for themselves (SPEC §12b: an `id` it cannot take, a body over its
 * size limit, a unique-key clash): set aside, so that the records queued after them are still
 * pushed, and kept in the database (`SYNC_STORE`, `[store, 'rejected', key]`) with the server's
 * answer until the app retries or discards them, or a later write of the key is pushed; a pull
 * leaves the local item alone meanwhile, as it does a queued one. Functions over an open transaction that holds
 * `SYNC_STORE` (and `OUTBOX_STORE` where they queue).
 *
 * The other way round, a server copy the store refuses (an item `ttl` it cannot take, SPEC §4,
 * which a container with TTL off holds: the server ignores `ttl` there) is set aside by the pull
 * (`[store, 'refused', key]`), so that it blocks no pull: listed with the refused writes, it
 * goes when a copy the store takes comes in, the server deletes the item, a write of the key
 * is pushed, or the app discards it; the local item stays as it was meanwhile.
 */
import { SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'
import { queue, type OutboxRecord } from '../layout/outbox.js'
import { queuedAt } from './outbox.js'
import { statusOf } from './remote.js'
import { refusedOf, type Base } from './state.js'
import type { CosmosItem, Rejected } from './types.js'

/** Statuses by which the server refuses a record for itself: retrying it as it is cannot help. */
const REFUSALS = [400, 409, 413]

/** Whether `error` is the server refusing the record itself (the record is set aside). */
export function isRefusal(error: unknown): boolean {
  return REFUSALS.includes(statusOf(error) as number)
}

const rejectedKey = (store: string, key: IDBValidKey) => [store, 'rejected', key]
const allOf = (store: string) => IDBKeyRange.bound([store, 'rejected'], [store, 'rejected', []])
const refusedKey = (store: string, key: IDBValidKey) => [store, 'refused', key]

/** Sets `record` aside with the server's answer `error`. */
export function setAside(tx: IDBTransaction, record: OutboxRecord, error: unknown): void {
  const { message = String(error) } = (error ?? {}) as Error
  const rejected: Rejected = { key: String(record.key), op: record.op, at: record.at, status: statusOf(error) as number, message }
  keepRejected(tx, record.store, rejected)
}

/** Keeps `rejected` set aside again, as it was (a write parked with another scope, `scope.ts`). */
export function keepRejected(tx: IDBTransaction, store: string, rejected: Rejected): void {
  const sync = tx.objectStore(SYNC_STORE)
  sync.put(rejected, rejectedKey(store, rejected.key))
  // The key's write is what the app decides on now: one entry per key.
  sync.delete(refusedKey(store, rejected.key))
}

/** The writes of `store` set aside, by key. */
export async function listRejected(tx: IDBTransaction, store: string): Promise<Rejected[]> {
  return req(tx.objectStore(SYNC_STORE).getAll(allOf(store))) as Promise<Rejected[]>
}

/** What `sync.rejected()` lists: the writes set aside, then the server copies the store refused, each by key. */
export async function listSetAside(tx: IDBTransaction, store: string): Promise<Rejected[]> {
  const sync = tx.objectStore(SYNC_STORE)
  const [writes, copies] = await Promise.all([listRejected(tx, store), req(sync.getAll(refusedOf(store))) as Promise<Refused[]>])
  return [...writes, ...copies.map(({ base: _base, ...refused }) => refused)]
}

/** How many entries {@link listSetAside} lists. */
export async function countRejected(tx: IDBTransaction, store: string): Promise<number> {
  const sync = tx.objectStore(SYNC_STORE)
  const [writes, copies] = await Promise.all([req(sync.count(allOf(store))), req(sync.count(refusedOf(store)))])
  return writes + copies
}

/** A server copy the store refused, as kept: with its base, which a discard makes the item's. */
export type Refused = Rejected & { base: Base }

/**
 * Sets aside the server's copy `item`, which the store refused with `error` (the pull goes on
 * without it); `base` is what the copy is (`context.ts` `baseOf`).
 */
export function refuseCopy(tx: IDBTransaction, store: string, item: CosmosItem, base: Base, error: unknown): void {
  const { message = String(error) } = (error ?? {}) as Error
  const refused: Refused = { key: item.id, op: 'pull', at: (item._ts ?? 0) * 1000, status: 0, message, base }
  tx.objectStore(SYNC_STORE).put(refused, refusedKey(store, item.id))
}

/** Forgets the server copy of `key` the store refused, if any. */
export function dropRefused(tx: IDBTransaction, store: string, key: IDBValidKey): void {
  tx.objectStore(SYNC_STORE).delete(refusedKey(store, key))
}

/** The server copy of `key` the store refused, if any. */
export function readRefused(tx: IDBTransaction, store: string, key: IDBValidKey): Promise<Refused | undefined> {
  return req(tx.objectStore(SYNC_STORE).get(refusedKey(store, key)))
}

/** The keys of the server copies of `store` the store refused. */
export async function refusedKeys(tx: IDBTransaction, store: string): Promise<IDBValidKey[]> {
  return ((await req(tx.objectStore(SYNC_STORE).getAllKeys(refusedOf(store)))) as IDBValidKey[][]).map((key) => key[2])
}

/** A write set aside, as kept. */
type RefusedWrite = Rejected & { op: 'put' | 'delete' }

export function readRejected(tx: IDBTransaction, store: string, key: IDBValidKey): Promise<RefusedWrite | undefined> {
  return req(tx.objectStore(SYNC_STORE).get(rejectedKey(store, key)))
}

/** Forgets the write of `key` set aside, and the server copy of it the store refused, if any. */
export function dropRejected(tx: IDBTransaction, store: string, key: IDBValidKey): void {
  tx.objectStore(SYNC_STORE).delete(rejectedKey(store, key))
  dropRefused(tx, store, key)
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
