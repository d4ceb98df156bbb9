/** Dexie with a hand-rolled indexed `expiresAt` field: what a user would pick instead. */
import Dexie, { type Table } from 'dexie'
import { chunks, freshName, LIVE_WRITE, T0, type Dataset } from '../data.js'
import { expiring, STORE, type RawItem } from './raw.js'

export type DexieDB = Dexie & { items: Table<RawItem, number> }

/** Opens a fresh Dexie database (`id, expiresAt`), seeds it, runs `use`, deletes it. */
export async function withDexie<T>(data: Dataset, use: (db: DexieDB) => Promise<T>): Promise<T> {
  const db = new Dexie(freshName('dexie')) as DexieDB
  db.version(1).stores({ [STORE]: 'id, expiresAt' })
  await db.open()
  try {
    for (const chunk of chunks(data.dead, 10_000)) await db.items.bulkPut(chunk.map((i) => expiring(i, T0)))
    for (const chunk of chunks(data.live, 10_000)) await db.items.bulkPut(chunk.map((i) => expiring(i, LIVE_WRITE)))
    return await use(db)
  } finally {
    await db.delete()
  }
}

/** `table.get` plus the expiry check. */
export async function getLive(db: DexieDB, key: number, nowMs: number): Promise<RawItem | undefined> {
  const value = await db.items.get(key)
  return value && value.expiresAt > nowMs ? value : undefined
}
