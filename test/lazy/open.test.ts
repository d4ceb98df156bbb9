// Issue #44: what an open loads on first use, in the page entries (assembly/open-full.ts,
// assembly/open.ts, layout/connection.ts): the watch of onLost and bucket.expiresAfterItems, the
// schema work (after a first open without a version), the storage work. A chunk that cannot be
// loaded fails that open, with why, and leaves nothing of it running; the next open loads it again.
import { deleteDB, openDB } from 'idb'
import { expect, test } from 'vitest'
import type { MakeBackground } from '../../src/background/background.js'
import { inlineBackground } from '../../src/background/inline.js'
import { uniqueName } from '../helpers.js'
import { chunks, existing, SOON } from './loaders.js'

/** The inline background, counting the handles made and closed. */
function counted() {
  const handles = { made: 0, closed: 0 }
  const made: MakeBackground = (options) => {
    handles.made++
    const background = inlineBackground(options)
    const close = background.close.bind(background)
    background.close = () => (handles.closed++, close())
    return background
  }
  return { handles, made }
}

test('an open with onLost whose watch cannot be loaded rejects with why and leaves no handle open behind it; the next open loads it', async () => {
  const { open, watch } = chunks()
  const { handles, made } = counted()
  const name = uniqueName()
  const offline = new TypeError('Failed to fetch dynamically imported module')
  watch.failNext(offline)
  await expect(open(name, { onLost: () => {} }, made)).rejects.toBe(offline)
  expect(handles).toEqual({ made: 1, closed: 1 })
  const db = await open(name, { onLost: () => {} }, made)
  await db.put('s', { id: 1 })
  expect(watch.loads).toBe(2)
  db.close()
  await deleteDB(name)
})

test('a first open of a database that does not exist (its open without a version aborted) creates it at the declared version, with its stores', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  const db = await open(name, { version: 3 })
  await db.put('s', { id: 1 })
  expect(upgrade.loads).toBe(1)
  expect(db.raw.version).toBe(3)
  expect([...db.raw.objectStoreNames]).toContain('s')
  db.close()
  await deleteDB(name)
})

test('an open whose schema work cannot be loaded rejects with why and leaves no database behind; the next open loads it and creates the database', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  const offline = new TypeError('Failed to fetch dynamically imported module')
  upgrade.failNext(offline)
  await expect(open(name, { version: 2 })).rejects.toBe(offline)
  expect(await existing()).not.toContain(name)
  const db = await open(name, { version: 2 })
  expect(db.raw.version).toBe(2)
  db.close()
  await deleteDB(name)
})

test('a database at a lower version, held open by another connection that steps aside, is upgraded by an open whose schema work loads meanwhile', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  const older = await open(name, { version: 1 })
  await older.put('s', { id: 1 })
  const other = await openDB(name, undefined, { blocking: () => other.close() })
  upgrade.hold()
  const opening = open(name, { version: 2, stores: { s: { keyPath: 'id', defaultTtl: 60 }, t: { keyPath: 'id' } } })
  await expect.poll(() => upgrade.loads, SOON).toBe(2)
  upgrade.release()
  const db = await opening
  expect(db.raw.version).toBe(2)
  expect(await db.get('s', 1)).toMatchObject({ id: 1 })
  // The older handle steps aside and reopens at the version there is.
  expect(await older.get('s', 1)).toMatchObject({ id: 1 })
  older.close()
  db.close()
  await deleteDB(name)
})

test('a database deleted while an open loads its schema work is created by that open as declared', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  const older = await open(name, { version: 1 })
  await older.put('s', { id: 1 })
  older.close()
  upgrade.hold()
  const opening = open(name, { version: 2 })
  await expect.poll(() => upgrade.loads, SOON).toBe(2)
  await deleteDB(name)
  upgrade.release()
  const db = await opening
  expect(db.raw.version).toBe(2)
  expect(await db.getAll('s')).toEqual([])
  db.close()
  await deleteDB(name)
})

test('a handle closed while a call reopening its deleted database loads the schema work does not create the database again', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  // Created by a first handle, so that the second opens it as declared and has no schema work yet.
  const first = await open(name, {})
  first.close()
  const db = await open(name, {})
  expect(upgrade.loads).toBe(1)
  await deleteDB(name)
  upgrade.hold()
  const read = db.get('s', 1)
  await expect.poll(() => upgrade.loads, SOON).toBe(2)
  db.close()
  upgrade.release()
  await expect(read).rejects.toMatchObject({ code: 'CLOSED' })
  expect(await existing()).not.toContain(name)
})

test('an upgrade blocked by a connection that does not step aside waits for it, and completes once it closes', async () => {
  const { open } = chunks()
  const name = uniqueName()
  const older = await open(name, { version: 1 })
  older.close()
  // An app's own connection, with no versionchange handler.
  const other = await openDB(name)
  let asked = false
  const opening = open(name, { version: 2 })
  other.addEventListener('versionchange', () => (asked = true))
  await expect.poll(() => asked, SOON).toBe(true)
  other.close()
  const db = await opening
  expect(db.raw.version).toBe(2)
  db.close()
  await deleteDB(name)
})

test('two opens at once with different versions: the one whose schema work loads last meets the higher version, and is told so', async () => {
  const slow = chunks()
  const fast = chunks()
  const name = uniqueName()
  const first = await fast.open(name, { version: 1 })
  first.close()
  slow.upgrade.hold()
  const older = slow.open(name, { version: 2 })
  await expect.poll(() => slow.upgrade.loads, SOON).toBe(1)
  const newer = await fast.open(name, { version: 3 })
  slow.upgrade.release()
  await expect(older).rejects.toMatchObject({ name: 'VersionError', message: expect.stringContaining('version: 2') })
  expect(newer.raw.version).toBe(3)
  newer.close()
  await deleteDB(name)
})

test('an older app opening a database a newer one upgraded gets VersionError even where its schema work cannot be loaded', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  const newer = await open(name, { version: 3 })
  newer.close()
  upgrade.failNext(new TypeError('Failed to fetch dynamically imported module'))
  await expect(open(name, { version: 2 })).rejects.toMatchObject({ name: 'VersionError' })
  await deleteDB(name)
})
