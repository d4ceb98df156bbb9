// The examples' database: sessions of two users, each kept 10 seconds unless given another ttl.
import { openTtlDB, type DBSchema, type TtlFields } from 'idb-ttl'

export interface Schema extends DBSchema {
  sessions: { key: string; value: { id: string; user: string; started: number } & TtlFields; indexes: { byUser: string } }
}

/** Opened once, at start-up; the bindings take the promise. */
export const opening = openTtlDB<Schema>('idb-ttl-examples', {
  version: 1,
  stores: { sessions: { keyPath: 'id', defaultTtl: 10, indexes: { byUser: { keyPath: 'user' } } } },
})

export const users = ['ada', 'grace']

/** A new session of `user`, which expires after `ttl` seconds (the store's 10 by default). */
export async function startSession(user: string, ttl?: number): Promise<void> {
  const db = await opening
  await db.put('sessions', { id: crypto.randomUUID(), user, started: Date.now(), ...(ttl !== undefined && { ttl }) })
}
