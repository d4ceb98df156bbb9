/**
 * What the mirror knows of the server, kept in the database (`SYNC_STORE`) so that it survives
 * reloads: the pull's checkpoint, and per item the `_etag` and partition key of the server's
 * copy the local one was last in step with (the base: a push sends the `_etag` as `If-Match`).
 * Functions over an open transaction that holds the store: callers write them in the same
 * transaction as the items.
 */
import { SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'
import type { PartitionKey } from '@azure/cosmos'

/** Where a pull resumes: every server change at or after `ts` (epoch s) is still to be read. */
export interface Checkpoint {
  /** Which container, partition key value and filter it belongs to: another one starts over. */
  source: string
  ts: number
  /** When the last round that completed began, epoch ms (the connection's clock). */
  pulledAt?: number
  /**
   * A re-read of the container (its TTL or the clock's offset changed) is under way: until a
   * round completes it, every round goes on with it (`pull.ts`).
   */
  rereading?: true
  /**
   * The container definition's `_etag` when the last round that completed began: another one
   * means it was replaced since, and items may have expired under a TTL no round read (`pull.ts`).
   */
  container?: string
}

const checkpointKey = (store: string) => [store, 'checkpoint']
const etagKey = (store: string, key: IDBValidKey) => [store, 'etag', key]
const etagsOf = (store: string) => IDBKeyRange.bound([store, 'etag'], [store, 'etag', []])
/** Where the server copies of `store` the store refused are kept (`rejected.ts`). */
export const refusedOf = (store: string) => IDBKeyRange.bound([store, 'refused'], [store, 'refused', []])

export function readCheckpoint(tx: IDBTransaction, store: string): Promise<Checkpoint | undefined> {
  return req(tx.objectStore(SYNC_STORE).get(checkpointKey(store)))
}

export function writeCheckpoint(tx: IDBTransaction, store: string, checkpoint: Checkpoint): void {
  tx.objectStore(SYNC_STORE).put(checkpoint, checkpointKey(store))
}

/**
 * The server copy an item was last in step with: its `_etag` (the `If-Match` of the next push)
 * and its partition key value (where a delete of the item, gone locally, must be sent).
 */
export interface Base {
  etag: string
  pk?: PartitionKey
  /** The offset of the device's clock its local copy's `_ts` was moved by (`server-clock.ts`). */
  offsetS?: number
}

export async function readBase(tx: IDBTransaction, store: string, key: IDBValidKey): Promise<Base | undefined> {
  return asBase(await req(tx.objectStore(SYNC_STORE).get(etagKey(store, key))))
}

/** A base as stored (read by key or in a range). */
export function asBase(stored: unknown): Base | undefined {
  // A bare `_etag`: kept by a version of the mirror before partition keys were.
  return typeof stored === 'string' ? { etag: stored } : (stored as Base | undefined)
}

/** Records the server copy's base (`undefined`: the server has none, forget it). */
export function writeBase(tx: IDBTransaction, store: string, key: IDBValidKey, base: Base | undefined): void {
  const sync = tx.objectStore(SYNC_STORE)
  if (base === undefined) sync.delete(etagKey(store, key))
  else sync.put(base, etagKey(store, key))
}

/** Every key of `store` the mirror has a base for (the items that came from the server), but those whose base is one of the `_etag`s `except`. */
export async function keysWithEtags(tx: IDBTransaction, store: string, except: ReadonlySet<string>): Promise<IDBValidKey[]> {
  const sync = tx.objectStore(SYNC_STORE)
  const [keys, bases] = await Promise.all([req(sync.getAllKeys(etagsOf(store))) as Promise<IDBValidKey[][]>, req(sync.getAll(etagsOf(store)))])
  return keys.filter((_, i) => !except.has(asBase(bases[i])!.etag)).map((key) => key[2])
}

/**
 * Forgets the checkpoint, every base of `store` and the server copies it refused: its next pull
 * reads the container afresh.
 */
export function forgetServer(tx: IDBTransaction, store: string): void {
  const sync = tx.objectStore(SYNC_STORE)
  sync.delete(checkpointKey(store))
  sync.delete(etagsOf(store))
  sync.delete(refusedOf(store))
}
