/**
 * What the mirror knows of the server, kept in the database (`SYNC_STORE`) so that it survives
 * reloads: the pull's checkpoint, and per item the `_etag` of the server's copy the local one
 * was last in step with (the base a push sends as `If-Match`). Functions over an open
 * transaction that holds the store: callers write them in the same transaction as the items.
 */
import { SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'

/** Where a pull resumes: every server change at or after `ts` (epoch s) is still to be read. */
export interface Checkpoint {
  /** Which container, partition key value and filter it belongs to: another one starts over. */
  source: string
  ts: number
  /** When the last round that completed began, epoch ms (the connection's clock). */
  pulledAt?: number
}

const checkpointKey = (store: string) => [store, 'checkpoint']
const etagKey = (store: string, key: IDBValidKey) => [store, 'etag', key]

export function readCheckpoint(tx: IDBTransaction, store: string): Promise<Checkpoint | undefined> {
  return req(tx.objectStore(SYNC_STORE).get(checkpointKey(store)))
}

export function writeCheckpoint(tx: IDBTransaction, store: string, checkpoint: Checkpoint): void {
  tx.objectStore(SYNC_STORE).put(checkpoint, checkpointKey(store))
}

export function readEtag(tx: IDBTransaction, store: string, key: IDBValidKey): Promise<string | undefined> {
  return req(tx.objectStore(SYNC_STORE).get(etagKey(store, key)))
}

/** Records the server copy's `_etag` (`undefined`: the server has none, forget it). */
export function writeEtag(tx: IDBTransaction, store: string, key: IDBValidKey, etag: string | undefined): void {
  const sync = tx.objectStore(SYNC_STORE)
  if (etag === undefined) sync.delete(etagKey(store, key))
  else sync.put(etag, etagKey(store, key))
}

/** Every key of `store` the mirror has an `_etag` for: the items that came from the server. */
export async function keysWithEtags(tx: IDBTransaction, store: string): Promise<IDBValidKey[]> {
  const range = IDBKeyRange.bound([store, 'etag'], [store, 'etag', []])
  const keys = (await req(tx.objectStore(SYNC_STORE).getAllKeys(range))) as IDBValidKey[][]
  return keys.map((key) => key[2])
}
