// Where the three engines differ in what the library touches, each difference pinned by name so a
// new engine version that changes it shows up here first.
import { deleteDB, openDB } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import { commands, server } from 'vitest/browser'
import { openTtlDB } from '../../src/index.js'
import { AsIsConnection } from '../../src/layout/connection.js'
import { emptyIndexUniqueCursorFails, laterWriterHoldsUpEarlierOne, oneWriterAtATime } from '../engines/quirks.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'

afterEach(() => void vi.unstubAllGlobals())

const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

test('only WebKit lacks requestIdleCallback, as Safari does', () => {
  expect(typeof requestIdleCallback).toBe(server.browser === 'webkit' ? 'undefined' : 'function')
})

test('without requestIdleCallback the background purge runs from timers and still deletes expired items', async () => {
  vi.stubGlobal('requestIdleCallback', undefined)
  vi.stubGlobal('cancelIdleCallback', undefined)
  const clock = manualClock()
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', maxIntervalMs: 20 } })
  await db.putAll('s', Array.from({ length: 50 }, (_, i) => ({ id: i })))
  await db.put('s', { id: 'kept', ttl: -1 })
  clock.advance(10_000)
  await vi.waitFor(async () => expect(await db.raw.count('s')).toBe(1), { timeout: 15_000, interval: 10 })
  expect(await db.raw.getAllKeys('s')).toEqual(['kept'])
})

test('an open that must not create the database leaves none behind; WebKit alone still lists the name, at version 0', async () => {
  const name = uniqueName()
  await expect(new AsIsConnection({ name, stores, clock: Date.now }).native()).rejects.toMatchObject({ name: 'AbortError' })
  const listed = (await indexedDB.databases()).filter((d) => d.name === name)
  expect(listed).toEqual(server.browser === 'webkit' ? [{ name, version: 0 }] : [])
  // What matters everywhere: the next open finds no database there and creates it itself.
  let oldVersion: number | undefined
  const db = await openDB(name, 1, { upgrade: (_raw, old) => void (oldVersion = old) })
  db.close()
  await deleteDB(name)
  expect(oldVersion).toBe(0)
})

test("only WebKit on disk fails a 'nextunique' cursor over an empty index (UnknownError: Unable to open cursor)", async () => {
  expect(await emptyIndexUniqueCursorFails()).toBe(server.provider === 'webkit-disk')
})

test('Chromium, Firefox and WebKit on disk run one readwrite transaction of a database at a time, whatever its stores; WebKit in memory runs them side by side', async () => {
  expect(await oneWriterAtATime()).toBe(server.browser !== 'webkit' || server.provider === 'webkit-disk')
})

test('Firefox and WebKit on disk start a readwrite transaction before an earlier waiting one, then hold that one up; Chromium starts them in order', async () => {
  expect(await laterWriterHoldsUpEarlierOne()).toBe(server.browser === 'firefox' || server.provider === 'webkit-disk')
})

/** Where WebKit keeps a database of this page's origin on disk: `<scheme>_<host>_<port>/<SHA-256 of its name>/`. */
async function webkitFile(name: string): Promise<string> {
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(name)))
  const hex = Array.from(hash, (b) => b.toString(16).padStart(2, '0').toUpperCase()).join('')
  return `${location.protocol.slice(0, -1)}_${location.hostname}_${location.port}/${hex}/IndexedDB.sqlite3`
}

// The webkit-disk project exists to run on Safari's normal backend: this pins that it does.
test.runIf(server.provider === 'webkit-disk')('webkit-disk keeps each database in a SQLite file of its data folder, from the first write until it is deleted', async () => {
  const name = uniqueName()
  const file = await webkitFile(name)
  expect(await commands.indexedDBFiles()).not.toContain(file)
  const db = await openTtlDB(name, { version: 1, stores, purge: { mode: 'off' } })
  await db.putAll('s', Array.from({ length: 100 }, (_, i) => ({ id: i })))
  expect(await commands.indexedDBFiles()).toContain(file)
  db.close()
  await deleteDB(name)
  expect(await commands.indexedDBFiles()).not.toContain(file)
})
