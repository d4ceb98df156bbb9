// Issue #44: the writes and reads of stores that keep their values in generations (`evictOnQuota`:
// writes/stashed-writes.ts, generations/stash.ts, generations/values.ts) are loaded by `idb-ttl`
// with `import()` at the first such write or read. A chunk that cannot be loaded fails that call
// only, writing nothing and losing nothing; a handle closed while it loads writes nothing either.
import { deleteDB, openDB } from 'idb'
import { expect, test } from 'vitest'
import { IN_FIREFOX, uniqueName } from '../helpers.js'
import { chunks, SOON } from './loaders.js'

const kept = { s: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true } }

// Firefox keeps these stores' values in their rows (layout/generation-index.ts): no chunk to load there.

/** The generation databases of `name` there are now. */
const generations = async (name: string) => (await indexedDB.databases()).map((db) => db.name).filter((other) => other?.startsWith(`${name}~`))

test.skipIf(IN_FIREFOX)('a write whose chunk cannot be loaded rejects with why and writes nothing; the next loads it and writes', async () => {
  const { open, stashWork } = chunks()
  const name = uniqueName()
  const db = await open(name, { stores: kept })
  const offline = new TypeError('Failed to fetch dynamically imported module')
  stashWork.failNext(offline)
  await expect(db.put('s', { id: 1 })).rejects.toBe(offline)
  expect(await db.get('s', 1)).toBeUndefined()
  await db.put('s', { id: 1 })
  expect(stashWork.loads).toBe(2)
  expect(await db.get('s', 1)).toMatchObject({ id: 1 })
  db.close()
  await deleteDB(name)
})

test.skipIf(IN_FIREFOX)('a write left waiting for its chunk by close() rejects with TtlError CLOSED and leaves no generation behind', async () => {
  const { open, stashWork } = chunks()
  const name = uniqueName()
  const db = await open(name, { stores: kept })
  stashWork.hold()
  const put = db.put('s', { id: 1 })
  await expect.poll(() => stashWork.loads, SOON).toBe(1)
  db.close()
  stashWork.release()
  await expect(put).rejects.toMatchObject({ code: 'CLOSED' })
  expect(await generations(name)).toEqual([])
  await deleteDB(name)
})

test.skipIf(IN_FIREFOX)('two writes of one key called in one tick while the chunk loads land in the order called', async () => {
  const { open, stashWork } = chunks()
  const name = uniqueName()
  const db = await open(name, { stores: kept })
  stashWork.hold()
  const first = db.put('s', { id: 1, n: 1 })
  const second = db.put('s', { id: 1, n: 2 })
  stashWork.release()
  await Promise.all([first, second])
  expect(await db.get('s', 1)).toMatchObject({ n: 2 })
  db.close()
  await deleteDB(name)
})

test.skipIf(IN_FIREFOX)('a write whose chunk loads while another tab upgrades the database lands, on the connection reopened after it', async () => {
  const { open, stashWork } = chunks()
  const name = uniqueName()
  const db = await open(name, { stores: kept })
  stashWork.hold()
  const put = db.put('s', { id: 1 })
  await expect.poll(() => stashWork.loads, SOON).toBe(1)
  // Another tab's upgrade: the handle's connection steps aside for it.
  const other = await openDB(name, 2)
  other.close()
  stashWork.release()
  await put
  expect(await db.get('s', 1)).toMatchObject({ id: 1 })
  db.close()
  await deleteDB(name)
})

/** `name` with one item written in its store kept in generations, by a handle closed since: a handle opened next loads nothing before its first read. */
async function writtenBefore(name: string) {
  const { open } = chunks()
  const db = await open(name, { stores: kept })
  await db.put('s', { id: 1, v: 'one' })
  db.close()
}

test.skipIf(IN_FIREFOX)('a read whose chunk cannot be loaded rejects with why and loses nothing; the next read loads it and reads the value', async () => {
  const name = uniqueName()
  await writtenBefore(name)
  const { open, stashWork } = chunks()
  const db = await open(name, { stores: kept })
  const offline = new TypeError('Failed to fetch dynamically imported module')
  stashWork.failNext(offline)
  await expect(db.get('s', 1)).rejects.toBe(offline)
  expect(stashWork.loads).toBe(1)
  expect(await db.get('s', 1)).toMatchObject({ id: 1, v: 'one' })
  expect(await db.getAll('s')).toMatchObject([{ id: 1, v: 'one' }])
  expect(stashWork.loads).toBeGreaterThanOrEqual(2)
  db.close()
  await deleteDB(name)
})

test.skipIf(IN_FIREFOX)('a read waiting for its chunk keeps its place: it returns the value a put called after it replaces', async () => {
  const name = uniqueName()
  await writtenBefore(name)
  const { open, stashWork } = chunks()
  const db = await open(name, { stores: kept })
  stashWork.hold()
  const read = db.get('s', 1)
  const all = db.getAll('s')
  // One load for both (the handle keeps the chunk it asked for).
  await expect.poll(() => stashWork.loads, SOON).toBe(1)
  const put = db.put('s', { id: 1, v: 'two' })
  stashWork.release()
  await put
  expect(await read).toMatchObject({ v: 'one' })
  expect(await all).toMatchObject([{ v: 'one' }])
  expect(await db.get('s', 1)).toMatchObject({ v: 'two' })
  db.close()
  await deleteDB(name)
})

test.skipIf(IN_FIREFOX)('a live query of such a store emits the values, read with the chunk it loads', async () => {
  const name = uniqueName()
  await writtenBefore(name)
  const { open, stashWork } = chunks()
  const db = await open(name, { stores: kept })
  const seen: unknown[][] = []
  const off = db.live('s').subscribe((items) => seen.push(items))
  await expect.poll(() => seen.length, SOON).toBe(1)
  expect(seen[0]).toMatchObject([{ id: 1, v: 'one' }])
  expect(stashWork.loads).toBeGreaterThanOrEqual(1)
  off()
  db.close()
  await deleteDB(name)
})
