/** The creation of the Cosmos DB mirror's stores (`sync-stores.ts`): loaded with the schema work of an upgrade. */
import { OUTBOX_BY_KEY, OUTBOX_STORE, SYNC_STORE } from './sync-stores.js'

/** Creates the mirror's stores where missing, inside `upgradeneeded`. */
export function createSyncStores(db: IDBDatabase): void {
  if (!db.objectStoreNames.contains(OUTBOX_STORE)) {
    db.createObjectStore(OUTBOX_STORE, { autoIncrement: true }).createIndex(OUTBOX_BY_KEY, ['store', 'key'])
  }
  if (!db.objectStoreNames.contains(SYNC_STORE)) db.createObjectStore(SYNC_STORE)
}
