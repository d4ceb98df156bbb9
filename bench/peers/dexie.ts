/** Dexie with a hand-rolled indexed `expiresAt` field: what a user would pick instead. */
import Dexie, { type Table } from 'dexie'
import { freshName, writeBatches, type Dataset } from '../data.js'
import type { Fresh } from '../harness.js'
import { expiring, STORE, type RawItem } from './raw.js'

export type DexieDB = Dexie & { items: Table<RawItem, number> }

/** A fresh Dexie database (`id, expiresAt`) seeded with `data`. */
export async function openDexie(data: Dataset): Promise<Fresh<DexieDB>> {
  const db = new Dexie(freshName('dexie')) as DexieDB
  db.version(1).stores({ [STORE]: 'id, expiresAt' })
  await db.open()
  for (const { at, items } of writeBatches(data)) await db.items.bulkPut(items.map((i) => expiring(i, at)))
  return { db, drop: () => db.delete() }
}

/** `table.get` plus the expiry check. */
export async function getLive(db: DexieDB, key: number, nowMs: number): Promise<RawItem | undefined> {
  const value = await db.items.get(key)
  return value && value.expiresAt > nowMs ? value : undefined
}
