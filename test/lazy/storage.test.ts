// Issue #44: Storage Buckets, db.storage() and deleteTtlDB's bookkeeping (handle/storage-work.ts)
// are loaded by the page entries with `import()` on first use. A chunk that cannot be loaded fails
// that call only, with why, having changed nothing; the next call loads it again.
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { deletingWith } from '../../src/generations/delete-db.js'
import { uniqueName } from '../helpers.js'
import { chunks } from './loaders.js'

const offline = new TypeError('Failed to fetch dynamically imported module')

test('db.storage() whose chunk cannot be loaded rejects with why; the handle serves on, and the next loads it', async () => {
  const { open, storage } = chunks()
  const name = uniqueName()
  const db = await open(name, {})
  storage.failNext(offline)
  await expect(db.storage()).rejects.toBe(offline)
  await db.put('s', { id: 1 })
  expect(await db.storage()).toMatchObject({ expires: null })
  db.close()
  await deleteDB(name)
})

test('an open in a bucket whose storage work cannot be loaded rejects with why, creating nothing; the next opens', async () => {
  const { open, storage, upgrade, texts } = chunks()
  const name = uniqueName()
  storage.failNext(offline)
  await expect(open(name, { bucket: { name: 'lazy-b' } })).rejects.toBe(offline)
  expect(upgrade.loads).toBe(0)
  const db = await open(name, { bucket: { name: 'lazy-b' } })
  await db.put('s', { id: 1 })
  db.close()
  await deletingWith(storage.load, texts.load)(name, { bucket: 'lazy-b' })
})

test('deleteTtlDB whose storage work cannot be loaded rejects with why and deletes nothing; the next deletes', async () => {
  const { open, storage, texts } = chunks()
  const name = uniqueName()
  const db = await open(name, {})
  await db.put('s', { id: 1 })
  db.close()
  const deleteTtlDB = deletingWith(storage.load, texts.load)
  storage.failNext(offline)
  await expect(deleteTtlDB(name)).rejects.toBe(offline)
  const again = await open(name, {})
  expect(await again.get('s', 1)).toMatchObject({ id: 1 })
  again.close()
  await deleteTtlDB(name)
  const fresh = await open(name, {})
  expect(await fresh.get('s', 1)).toBeUndefined()
  fresh.close()
  await deleteDB(name)
})
