// Issue #44: Storage Buckets, `db.storage()` (handle/storage-work.ts) and the watch of `onLost` and
// `bucket.expiresAfterItems` (handle/storage-watch.ts) are loaded by the page entries with
// `import()` when an app first uses them: an open without them waits on no import. Each loader is
// counted here, as the entries hand it in (assembly/open-full.ts).
import { expect, test } from 'vitest'
import { chunks } from '../lazy/loaders.js'
import { inlineBackground } from '../../src/background/inline.js'
import { deletingWith } from '../../src/generations/delete-db.js'
import type { OpenTtlDBOptions } from '../../src/rules/types.js'
import { smallDisk } from '../capacity/disk.js'
import { uniqueName } from '../helpers.js'

function counted() {
  const c = chunks()
  const loads = {
    get storage() { return c.storage.loads },
    get watch() { return c.watch.loads },
    get relief() { return c.relief.loads },
  }
  const open = (name: string, options: Partial<OpenTtlDBOptions> = {}) => c.open(name, options, inlineBackground)
  return { loads, open, deleteTtlDB: deletingWith(c.storage.load, c.texts.load) }
}

test('an open without bucket or onLost loads neither; the first db.storage() loads the storage work, and answers as before', async () => {
  const { loads, open, deleteTtlDB } = counted()
  const name = uniqueName()
  const db = await open(name)
  await db.put('s', { id: 1 })
  expect(loads).toEqual({ storage: 0, watch: 0, relief: 0 })
  expect(db.lost).toBeUndefined()
  expect(await db.storage()).toMatchObject({ bucket: null, expires: null })
  expect(loads).toEqual({ storage: 1, watch: 0, relief: 0 })
  db.close()
  await deleteTtlDB(name)
  expect(loads).toEqual({ storage: 2, watch: 0, relief: 0 })
})

test('an open with a bucket loads the storage work before it opens; expiresAfterItems and onLost load the watch too', async () => {
  const { loads, open, deleteTtlDB } = counted()
  const name = uniqueName()
  const inBucket = await open(name, { bucket: { name: 'b1' } })
  expect(loads).toEqual({ storage: 1, watch: 0, relief: 0 })
  // In its bucket where the platform has them (Chromium); elsewhere (Node, Firefox, WebKit) in the
  // default bucket, and storage() says so.
  const buckets = typeof navigator !== 'undefined' && 'storageBuckets' in navigator
  expect(await inBucket.storage()).toMatchObject(buckets ? { bucket: 'b1', missing: [] } : { bucket: null, missing: expect.arrayContaining(['storageBuckets']) })
  inBucket.close()
  const following = await open(name, { bucket: { name: 'b1', expiresAfterItems: true } })
  expect(loads).toEqual({ storage: 3, watch: 1, relief: 0 })
  following.close()
  const reported: unknown[] = []
  const watched = await open(name, { onLost: (report) => reported.push(report) })
  expect(loads).toEqual({ storage: 3, watch: 2, relief: 0 })
  expect(watched.lost).toBeUndefined()
  watched.close()
  await deleteTtlDB(name)
  expect(reported).toEqual([])
})

test('a malformed bucket or onLost is still refused at open with INVALID_OPTION', async () => {
  const { open } = counted()
  await expect(open(uniqueName(), { bucket: { name: 'Not A Name' } })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('bucket.name') })
  await expect(open(uniqueName(), { onLost: 'no' as never })).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringContaining('onLost') })
})

test('the steps of quota relief load at the first write refused for lack of space, not before, and make room as before', async () => {
  const { loads, open, deleteTtlDB } = counted()
  const disk = smallDisk(3)
  const name = uniqueName()
  const db = await open(name, { purge: { mode: 'inline' }, stores: { s: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true } } })
  for (let id = 0; disk.room > 0; id++) await db.put('s', { id })
  expect(loads.relief).toBe(0)
  await db.put('s', { id: 'over' })
  expect(loads.relief).toBe(1)
  expect(await db.get('s', 'over')).toMatchObject({ id: 'over' })
  db.close()
  await deleteTtlDB(name)
})
