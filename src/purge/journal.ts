/**
 * The purge's journal, so that an expiry event is not lost with the tab or worker that deleted
 * its items. A batch that reads values for listeners writes its events into the journal store in
 * the transaction that deletes the items: the entry exists exactly when the deletion committed.
 * The batch's realm publishes them after the commit, then forgets them. A realm that ends in
 * between (a tab closed, a worker ended mid-purge) leaves them there, and the next purge, in any
 * realm, publishes what realms that have ended left behind. Each entry names its writer (its
 * realm's lock, `platform/lock.ts`): entries of a realm still alive are that realm's to publish.
 * An event may so be published twice (a realm ended between posting and forgetting, or two
 * purges replayed it): handles hear it once, by its journal id (`events/listeners.ts`).
 *
 * Where there are no Web Locks, or the database predates the journal store, events are
 * published as before: lost if their realm ends in that instant.
 */
import { publish, type DeletedItem, type ExpireReason } from '../events/listeners.js'
import { JOURNAL_STORE } from '../layout/expiry-index.js'
import { generationValues } from '../generations/values.js'
import { uniqueId } from '../platform/lock.js'
import { livingRealms, realmId } from '../platform/realms.js'
import { done, req } from '../platform/request.js'
/** The database's open connection, asked for again before each use. */
type Connect = () => Promise<IDBDatabase>

/** An expiry event as the journal keeps it until it is published. */
export interface JournalEntry {
  writer: string
  store: string
  reason: ExpireReason
  items: DeletedItem[]
}

/** Whether a purge of `db` can journal its events: the store is there, and realms can be told apart. */
export function canJournal(db: IDBDatabase): boolean {
  return db.objectStoreNames.contains(JOURNAL_STORE) && realmId() !== undefined
}

/** Inside the deleting transaction (which holds {@link JOURNAL_STORE}): keeps the event; returns its id. */
export function journal(tx: IDBTransaction, store: string, reason: ExpireReason, items: DeletedItem[]): string {
  const id = uniqueId()
  const entry: JournalEntry = { writer: realmId()!, store, reason, items }
  tx.objectStore(JOURNAL_STORE).put(entry, id)
  return id
}

/** Publishes an event, then forgets its journal entry (kept if it could not be posted). */
export async function publishJournaled(connect: Connect, dbName: string, id: string, entry: Omit<JournalEntry, 'writer'>): Promise<void> {
  if (!(await publish(dbName, entry, generationValues, id))) return
  const tx = (await connect()).transaction(JOURNAL_STORE, 'readwrite', { durability: 'relaxed' })
  tx.objectStore(JOURNAL_STORE).delete(id)
  await done(tx)
}

/** Publishes the events that realms which have ended left in the journal of database `dbName`. */
export async function replayJournal(connect: Connect, dbName: string): Promise<void> {
  const db = await connect()
  if (!db.objectStoreNames.contains(JOURNAL_STORE)) return
  const store = db.transaction(JOURNAL_STORE).objectStore(JOURNAL_STORE)
  const [ids, entries] = await Promise.all([req(store.getAllKeys()), req(store.getAll() as IDBRequest<JournalEntry[]>)])
  if (ids.length === 0) return
  const living = await livingRealms()
  for (const [i, { writer, ...entry }] of entries.entries()) {
    if (!living.has(writer)) await publishJournaled(connect, dbName, ids[i] as string, entry)
  }
}
