// What the database promises of a store (its capacity, `mirror: true`) lives in its settings, so that
// a handle that cannot declare it (`idb-ttl/core`) leaves it as it is and honours or refuses it; and
// what every entry's open checks and does before a handle exists: an async upgrade that fails, a
// store declared again after an upgrade deleted it, bad `durability` and `clock` values, and the
// core's one warning for a purge worker that cannot start.
import { deleteDB, openDB } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import * as core from '../../src/core.js'
import { openTtlDB as openFull, type OpenTtlDBOptions } from '../../src/index.js'
import { openTtlDB as openServiceWorker } from '../../src/service-worker.js'
import { META_STORE } from '../../src/layout/expiry-index.js'
import { OUTBOX_STORE } from '../../src/layout/sync-stores.js'
import { manualClock, uniqueName } from '../helpers.js'
import { stubWorkers } from '../purge/stubs.js'
import { databaseExists, deleteAfter, expectTtlError, SECOND, T0, unhandledDuring } from '../semantics/support.js'

const opened: { close(): void }[] = []
const names: string[] = []
let workers: ReturnType<typeof stubWorkers> | undefined

afterEach(async () => {
  workers?.restore()
  workers = undefined
  for (const db of opened.splice(0)) db.close()
  await Promise.all(names.splice(0).map((name) => deleteDB(name)))
})

/** Opens `name` with `open`, closed and deleted after the test. */
async function track<H extends { close(): void }>(name: string, opening: Promise<H>): Promise<H> {
  const db = await opening
  opened.push(db)
  if (!names.includes(name)) names.push(name)
  return db
}

/** The store's settings as the database keeps them. */
async function settingsOf(name: string, store: string): Promise<Record<string, unknown>> {
  const raw = await openDB(name)
  try {
    return await raw.get(META_STORE, store)
  } finally {
    raw.close()
  }
}

test("a core handle's open leaves the capacity a full handle declared: the full handle's purge still trims the store to its cap", async () => {
  const name = uniqueName('capacity')
  const clock = manualClock(T0)
  const full = await track(name, openFull<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60, maxEntries: 2 } } }))
  await track(name, core.openTtlDB<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } } }))
  expect(await settingsOf(name, 's')).toMatchObject({ capacity: { maxEntries: 2, evict: 'oldest', evictOnQuota: false } })
  for (const id of ['a', 'b', 'c', 'd', 'e']) {
    await full.put('s', { id })
    clock.advance(SECOND)
  }
  await full.purgeExpired('s')
  expect((await full.getAll('s')).map((item: { id: string }) => item.id)).toEqual(['d', 'e'])
})

test("a core handle's open leaves the store's default to its own declaration, and a full handle's open that drops the capacity removes it", async () => {
  const name = uniqueName('capacity-redeclared')
  await track(name, openFull<any>(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60, maxEntries: 2 } } })).then((db) => db.close())
  const db = await track(name, core.openTtlDB<any>(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 30 } } }))
  expect(await db.getDefaultTtl('s')).toBe(30)
  expect(await settingsOf(name, 's')).toMatchObject({ defaultTtl: 30, capacity: { maxEntries: 2 } })
  db.close()
  await track(name, openFull<any>(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 30 } } })).then((db) => db.close())
  expect(await settingsOf(name, 's')).not.toHaveProperty('capacity')
})

const mirrored = { m: { keyPath: 'id', defaultTtl: 60, mirror: true }, s: { keyPath: 'id', defaultTtl: 60 } }
const plain = { m: { keyPath: 'id', defaultTtl: 60 }, s: { keyPath: 'id', defaultTtl: 60 } }

/** Every write a core handle has, of store `m`. */
const coreWrites: [string, (db: core.TtlCoreDB<any>) => Promise<unknown>][] = [
  ['put', (db) => db.put('m', { id: 'new' })],
  ['putAll', (db) => db.putAll('m', [{ id: 'new' }])],
  ['add', (db) => db.add('m', { id: 'new' })],
  ['update', (db) => db.update('m', 'a', { v: 2 })],
  ['touch', (db) => db.touch('m', 'a')],
  ['delete', (db) => db.delete('m', 'a')],
  ['clear', (db) => db.clear('m')],
]

test.for(coreWrites)('a core handle refuses %s of a store a full handle mirrors, naming the store, mirror and idb-ttl; nothing is written, and its other stores serve on', async ([, write]) => {
  const name = uniqueName('mirror')
  const full = await track(name, openFull<any>(name, { version: 1, purge: { mode: 'off' }, stores: mirrored }))
  await full.put('m', { id: 'a', v: 1 })
  const outbox = await full.raw.getAll(OUTBOX_STORE)
  const db = await track(name, core.openTtlDB<any>(name, { version: 1, purge: { mode: 'off' }, stores: plain }))
  const refused = write(db)
  await expectTtlError(refused, 'UNSUPPORTED')
  const { message } = (await refused.catch((e: unknown) => e)) as Error
  expect(message).toContain('"m"')
  expect(message).toContain('mirror')
  expect(message).toContain("from 'idb-ttl'")
  expect(await full.getAll('m')).toMatchObject([{ id: 'a', v: 1 }])
  expect(await full.raw.getAll(OUTBOX_STORE)).toEqual(outbox)
  expect(await db.get('m', 'a'), 'reads serve on').toMatchObject({ id: 'a', v: 1 })
  await db.put('s', { id: 'b' })
  expect(await db.get('s', 'b')).toMatchObject({ id: 'b' })
})

test('a store a full handle mirrors from after a core handle opened (a database of idb-ttl 0.1.0, whose settings say nothing of it) is refused from then on', async () => {
  const name = uniqueName('mirror-later')
  const clock = manualClock(T0)
  await track(name, openFull<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: mirrored })).then((db) => db.close())
  // As idb-ttl 0.1.0 left it: `mirror` lived only in declarations.
  const raw = await openDB(name)
  const { mirror, ...settings } = await raw.get(META_STORE, 'm')
  expect(mirror).toBe(true)
  await raw.put(META_STORE, settings, 'm')
  raw.close()
  const db = await track(name, core.openTtlDB<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: plain }))
  await db.put('m', { id: 'a' })
  const full = await track(name, openFull<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: mirrored }))
  await expectTtlError(db.put('m', { id: 'b' }), 'UNSUPPORTED')
  await full.put('m', { id: 'c' })
  expect((await full.raw.getAll(OUTBOX_STORE)).map((record: { key: string }) => record.key)).toEqual(['c'])
  expect(await full.getAllKeys('m')).toEqual(['a', 'c'])
})

test("a full handle's open that no longer declares mirror (a new version of the app) removes it from the settings: a core handle writes the store then", async () => {
  const name = uniqueName('mirror-dropped')
  await track(name, openFull<any>(name, { version: 1, purge: { mode: 'off' }, stores: mirrored })).then((db) => db.close())
  await track(name, openFull<any>(name, { version: 1, purge: { mode: 'off' }, stores: plain })).then((db) => db.close())
  expect(await settingsOf(name, 'm')).not.toHaveProperty('mirror')
  const db = await track(name, core.openTtlDB<any>(name, { version: 1, purge: { mode: 'off' }, stores: plain }))
  await db.put('m', { id: 'a' })
  expect(await db.get('m', 'a')).toMatchObject({ id: 'a' })
})

/** The database's version as it is on disk, or 0 when there is none. */
async function versionOnDisk(name: string): Promise<number> {
  if (!(await databaseExists(name))) return 0
  const raw = await openDB(name)
  raw.close()
  return raw.version
}

test.for([
  ['idb-ttl', openFull],
  ['idb-ttl/service-worker', openServiceWorker],
] as const)('%s: an async upgrade that fails after its first request aborts the upgrade; openTtlDB rejects with its error, nothing unhandled', async ([, open]) => {
  const name = deleteAfter(uniqueName('async-upgrade'))
  const stores = { s: { keyPath: 'id', defaultTtl: 60 } }
  await open(name, { version: 1, purge: { mode: 'off' }, stores }).then((db) => db.close())
  const upgrade: NonNullable<OpenTtlDBOptions['upgrade']> = async (raw) => {
    await raw.createObjectStore('plain').put('half', 'done')
    throw new Error('migration failed')
  }
  let error: unknown
  const unhandled = await unhandledDuring(async () => {
    error = await open(name, { version: 2, purge: { mode: 'off' }, stores, upgrade }).catch((e: unknown) => e)
  })
  expect(error).toMatchObject({ message: 'migration failed' })
  expect(unhandled).toEqual([])
  expect(await versionOnDisk(name), 'the upgrade was undone').toBe(1)
})

test('a store an upgrade deleted and a later version declares again starts from its declaration, not from the settings the deleted store left', async () => {
  const name = uniqueName('redeclared-store')
  const clock = manualClock(T0)
  const v1 = await track(name, openFull<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } } }))
  await v1.setDefaultTtl('s', -1)
  v1.close()
  const upgrade = (raw: { deleteObjectStore(name: string): void }, oldVersion: number) => oldVersion === 1 && raw.deleteObjectStore('s')
  await track(name, openFull<any>(name, { version: 2, clock, purge: { mode: 'off' }, stores: {}, upgrade })).then((db) => db.close())
  const v3 = await track(name, openFull<any>(name, { version: 3, clock, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } } }))
  expect(await v3.getDefaultTtl('s')).toBe(60)
  await v3.put('s', { id: 'a' })
  clock.advance(61 * SECOND)
  expect(await v3.get('s', 'a')).toBeUndefined()
})

const entries = [
  ['idb-ttl', openFull],
  ['idb-ttl/core', core.openTtlDB],
  ['idb-ttl/service-worker', openServiceWorker],
] as const

test.for(entries.flatMap(([entry, open]) =>
  [
    ['durability', { durability: 'fast' }, "'fast'"],
    ['durability', { durability: 1 }, 'a number'],
    ['clock', { clock: 'now' }, 'a string'],
    ['clock', { clock: () => NaN }, 'NaN'],
    ['clock', { clock: () => String(T0) }, 'a string'],
  ].map(([option, given, shown]) => ({ entry, open, option, given, shown })),
))('$entry: $option $shown is refused at open with INVALID_OPTION naming it; no database is made', async ({ open, option, given, shown }) => {
  const name = deleteAfter(uniqueName('bad-option'))
  const opening = (open as typeof openFull)(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id' } }, ...(given as object) })
  await expectTtlError(opening, 'INVALID_OPTION')
  const { message } = (await opening.catch((e: unknown) => e)) as Error
  expect(message).toContain(option as string)
  expect(message).toContain(shown as string)
  expect(await databaseExists(name)).toBe(false)
})

test('each durability IndexedDB takes is accepted, in every entry', async () => {
  for (const [, open] of entries) {
    for (const durability of ['default', 'strict', 'relaxed'] as const) {
      const name = uniqueName('durability')
      const db = await track(name, (open as typeof openFull)(name, { version: 1, purge: { mode: 'off' }, durability, stores: { s: { keyPath: 'id' } } }))
      await db.put('s', { id: 'a' })
      expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
    }
  }
})

test('idb-ttl/core whose purge worker cannot start (its script did not load) says so once on the console, naming the URL and what to do, and starts it no more', async () => {
  workers = stubWorkers('fail')
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    const name = uniqueName('core-no-worker')
    const clock = manualClock(T0)
    const db = await track(name, core.openTtlDB<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }))
    await db.put('s', { id: 'a', ttl: 1 })
    clock.advance(5 * SECOND)
    for (let i = 0; i < 3; i++) {
      await expect(db.purgeExpired('s')).rejects.toMatchObject({ name: 'PurgeWorkerError', message: expect.stringContaining('its script did not load') })
    }
    expect(workers.started).toHaveLength(1)
    expect(warn).toHaveBeenCalledTimes(1)
    const [message] = warn.mock.calls[0] as [string]
    expect(message).toMatch(/^idb-ttl: the purge worker could not be started from \S+\/purge-worker\.ts\S*: its script did not load/)
    expect(message).toContain(name)
    expect(message).toContain('is not purged')
    expect(message).toContain('dist/purge-worker.js')
    expect(message).toContain("'idb-ttl'")
    expect(await db.get('s', 'a'), 'reads stay exact').toBeUndefined()
  } finally {
    warn.mockRestore()
  }
})
