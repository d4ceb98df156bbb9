// `idb-ttl/core` (src/core.ts): the basic calls keep every rule of SPEC §1–7 they have in the full
// entry, declarations that need the full entry are refused at open, and a core handle and a full
// one on the same database interoperate exactly (same layout, settings, watermarks, purge, events).
import { deleteDB, unwrap, wrap, type IDBPDatabase } from 'idb'
import { afterEach, expect, expectTypeOf, test, vi } from 'vitest'
import * as core from '../../src/core.js'
import { deleteTtlDB, openTtlDB as openFull, TtlDB, type AnyTtlDB, type ExpireEvent, type OpenTtlCoreDBOptions, type OpenTtlDBOptions, type PurgeReport, type Stamped, type TtlFields } from '../../src/index.js'
import { freshDB, IN_FIREFOX, manualClock, SOON, uniqueName } from '../helpers.js'
import { captureTimers } from '../live/timers.js'
import { ensureLocks } from '../purge/stubs.js'
import { databaseExists, deleteAfter, expectDomError, expectTtlError, SECOND, T0 } from '../semantics/support.js'

const stores = { s: { keyPath: 'id', defaultTtl: 60 }, off: { keyPath: 'id' } }
const opened: { close(): void }[] = []
const names: string[] = []

afterEach(async () => {
  for (const db of opened.splice(0)) db.close()
  await Promise.all(names.splice(0).map((name) => deleteDB(name)))
})

/** A core handle on a fresh database (or on `name`), closed and deleted after the test. */
async function openCore(options: Partial<OpenTtlCoreDBOptions> = {}, name = uniqueName('core')) {
  const db = await core.openTtlDB<any>(name, { version: 1, stores, purge: { mode: 'off' }, ...options })
  opened.push(db)
  names.push(name)
  return db
}

test('the core handle has the basic calls and none of the full handle’s features', async () => {
  const db = await openCore()
  expect(db).toBeInstanceOf(core.TtlCoreDB)
  expect(db).not.toBeInstanceOf(TtlDB)
  for (const call of ['get', 'getAll', 'getAllKeys', 'count', 'put', 'putAll', 'add', 'update', 'touch', 'delete', 'clear', 'expiresAt', 'setDefaultTtl', 'getDefaultTtl', 'purgeExpired', 'close']) {
    expect(typeof (db as unknown as Record<string, unknown>)[call], call).toBe('function')
  }
  for (const feature of ['live', 'transaction', 'onExpire', 'onPurge', 'iterate', 'getFromIndex', 'stats', 'purgeDuring', 'isPurger']) {
    expect(feature in db, feature).toBe(false)
  }
  expect(db.raw.name).toMatch(/^core-/)
})

/** Never called: a typed core handle, as tsc sees it (`npm run typecheck`). */
async function typed(db: core.TtlCoreDB<{ s: { key: string; value: { id: string } & TtlFields } }>) {
  expectTypeOf(await db.get('s', 'a')).toEqualTypeOf<Stamped<{ id: string } & TtlFields> | undefined>()
  // @ts-expect-error only declared stores
  await db.put('t', { id: 'a' })
  // @ts-expect-error live queries are the full handle's
  db.live('s')
  // A full handle where either handle is expected; not where the core's native `raw` is.
  expectTypeOf<TtlDB<any>>().toMatchTypeOf<core.TtlCoreDB<any, IDBDatabase | IDBPDatabase<any>>>()
  expectTypeOf<TtlDB<any>>().not.toMatchTypeOf<core.TtlCoreDB<any>>()
  // AnyTtlDB names either handle, from either entry: both fit it, and its raw is either database.
  expectTypeOf<core.AnyTtlDB<any>>().toEqualTypeOf<AnyTtlDB<any>>()
  expectTypeOf<TtlDB<any>>().toMatchTypeOf<core.AnyTtlDB<any>>()
  expectTypeOf(db).toMatchTypeOf<core.AnyTtlDB<{ s: { key: string; value: { id: string } & TtlFields } }>>()
  expectTypeOf<core.AnyTtlDB['raw']>().toEqualTypeOf<IDBDatabase | IDBPDatabase<unknown>>()
  expectTypeOf(db.raw).toEqualTypeOf<IDBDatabase>()
  // @ts-expect-error the core's raw is the native database: idb's API is `wrap(db.raw)`'s
  await db.raw.get('s', 'a')
  expectTypeOf(await wrap(db.raw).get('s', 'a')).toBeAny()
  const upgrade = (raw: IDBPDatabase<any>) => void raw.createObjectStore('plain')
  // @ts-expect-error the core's upgrade is given the native database, not idb's view
  await core.openTtlDB('typed', { stores: {}, upgrade })
  await core.openTtlDB('typed', { stores: {}, upgrade: (raw) => upgrade(wrap(raw)) })
  expectTypeOf<NonNullable<OpenTtlCoreDBOptions['upgrade']>>().parameters.toEqualTypeOf<[IDBDatabase, number, number | null, IDBTransaction]>()
  expectTypeOf<NonNullable<OpenTtlDBOptions['upgrade']>>().parameters.toEqualTypeOf<[IDBPDatabase<unknown>, number, number | null]>()
}

test('a typed core handle has the basic calls, typed by its schema, and no live queries (checked by tsc)', () => {
  expect(typeof typed).toBe('function')
})

/** What a request made on `db`'s store `s` is: the native `IDBRequest`, or idb's promise. */
function requestOn(db: IDBDatabase | IDBPDatabase<any>, key: IDBValidKey): IDBRequest | Promise<unknown> {
  return (db as IDBDatabase).transaction('s').objectStore('s').get(key)
}

test("the core's raw is the native IDBDatabase of its connection (no idb in idb-ttl/core): it sees what the handle wrote, and idb's view is wrap(db.raw)", async () => {
  const db = await openCore()
  await db.put('s', { id: 'a' })
  expect(db.raw).toBeInstanceOf(IDBDatabase)
  expect(db.raw, 'the connection itself, each time').toBe(db.raw)
  expect((db.raw as unknown as { get?: unknown }).get, 'no idb shortcut on it').toBeUndefined()
  const request = requestOn(db.raw, 'a')
  expect(request).toBeInstanceOf(IDBRequest)
  await new Promise((resolve) => ((request as IDBRequest).onsuccess = resolve))
  expect((request as IDBRequest).result).toMatchObject({ id: 'a', _ts: expect.any(Number) })
  expect(await wrap(db.raw).get('s', 'a'), "the one-line change for idb's API").toMatchObject({ id: 'a' })
})

test("the full entry's raw stays idb's view (SPEC §5), one per connection, over the same data", async () => {
  const full = await freshDB({ stores })
  await full.put('s', { id: 'a' })
  expect(full.raw, 'one view per connection').toBe(full.raw)
  expect(full.raw).not.toBe(unwrap(full.raw))
  expect(unwrap(full.raw)).toBeInstanceOf(IDBDatabase)
  expect(await full.raw.get('s', 'a'), "idb's shortcut").toMatchObject({ id: 'a' })
  expect(requestOn(full.raw, 'a')).toBeInstanceOf(Promise)
})

test("the core's upgrade is given the native database and the version-change transaction, after the library's schema work: native calls work on them", async () => {
  const name = uniqueName('core-upgrade')
  const given: unknown[][] = []
  const db = await openCore(
    {
      upgrade(raw, oldVersion, newVersion, transaction) {
        const request = raw.createObjectStore('plain').add('value', 'key')
        given.push([raw, oldVersion, newVersion, transaction.mode, [...transaction.objectStoreNames].includes('s'), request instanceof IDBRequest])
      },
    },
    name,
  )
  expect(given).toEqual([[db.raw, 0, 1, 'versionchange', true, true]])
  expect(given[0][0], 'the connection itself, not a view of it').toBe(db.raw)
  const request = db.raw.transaction('plain').objectStore('plain').get('key')
  await new Promise((resolve) => (request.onsuccess = resolve))
  expect(request.result).toBe('value')
})

test('a core upgrade that throws rejects openTtlDB with its error, and no database is made', async () => {
  const name = deleteAfter(uniqueName('core-upgrade-throws'))
  const fails = () => {
    throw new Error('migration failed')
  }
  const opening = openCore({ upgrade: fails }, name)
  await expect(opening).rejects.toMatchObject({ message: 'migration failed' })
  expect(await databaseExists(name)).toBe(false)
})

test.for(['core', 'full'] as const)('%s: an upgrade that is no function is refused at open with INVALID_OPTION naming upgrade; no database is made', async (entry) => {
  const name = deleteAfter(uniqueName('upgrade-odd'))
  const open = entry === 'core' ? core.openTtlDB : openFull
  const opening = open(name, { version: 1, stores, purge: { mode: 'off' }, upgrade: 'migrate' as never })
  await expectTtlError(opening, 'INVALID_OPTION')
  expect(((await opening.catch((e: unknown) => e)) as Error).message).toContain('upgrade')
  expect(await databaseExists(name)).toBe(false)
})

test.for([
  ['maxEntries', { maxEntries: 10 }],
  ['evict', { evict: 'soonest' }],
  ['evictOnQuota', { evictOnQuota: true }],
  ['touchOnRead', { touchOnRead: true }],
  ['mirror', { mirror: true, keepTs: true }],
] as const)('a store declaring %s is refused at open with UNSUPPORTED naming the store, the option and idb-ttl; no database is made', async ([option, extra]) => {
  const name = uniqueName('refused')
  const opening = core.openTtlDB(name, { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 60, ...extra } } })
  await expectTtlError(opening, 'UNSUPPORTED')
  const error = (await opening.catch((e: unknown) => e)) as Error
  expect(error.message).toContain(`store "s": ${option}`)
  expect(error.message).toContain("from 'idb-ttl'")
  expect((await indexedDB.databases()).map((db) => db.name)).not.toContain(name)
})

test("purge mode 'inline' is refused (the core purges in its worker); a bad option is still INVALID_OPTION first", async () => {
  await expectTtlError(core.openTtlDB(uniqueName('refused'), { version: 1, stores, purge: { mode: 'inline' } }), 'UNSUPPORTED')
  await expectTtlError(core.openTtlDB(uniqueName('refused'), { version: 1, stores: { s: { keyPath: 'id', maxEntries: 0 } } }), 'INVALID_OPTION')
  // `false` declares nothing the core lacks.
  const db = await openCore({ stores: { s: { keyPath: 'id', defaultTtl: 60, touchOnRead: false, evictOnQuota: false, mirror: false } } })
  expect(await db.getDefaultTtl('s')).toBe(60)
})

test('put stamps _ts and resolves to the key; get, getAll, getAllKeys and count see an item until its ttl ends, inherited or its own (SPEC §1–2)', async () => {
  const clock = manualClock(T0)
  const db = await openCore({ clock })
  expect(await db.put('s', { id: 'inherits' })).toBe('inherits')
  expect(await db.putAll('s', [{ id: 'own', ttl: 10 }, { id: 'never', ttl: -1 }])).toEqual(['own', 'never'])
  expect(await db.get('s', 'own')).toEqual({ id: 'own', ttl: 10, _ts: T0 / 1000 })
  clock.advance(9 * SECOND)
  expect(await db.count('s')).toBe(3)
  clock.advance(1 * SECOND)
  expect(await db.get('s', 'own'), 'dead at _ts + ttl').toBeUndefined()
  expect(await db.getAllKeys('s')).toEqual(['inherits', 'never'])
  clock.advance(50 * SECOND)
  expect(await db.getAll('s')).toEqual([{ id: 'never', ttl: -1, _ts: T0 / 1000 }])
  expect(await db.count('s')).toBe(1)
  expect(await db.get('s', IDBKeyRange.lowerBound('a'))).toMatchObject({ id: 'never' })
  // The physical view still holds the dead: only the purge deletes them.
  expect(await wrap(db.raw).get('s', 'own')).toMatchObject({ id: 'own' })
})

test('a store with TTL off keeps everything, ttl fields included (SPEC §1)', async () => {
  const clock = manualClock(T0)
  const db = await openCore({ clock })
  await db.put('off', { id: 'a', ttl: 1 })
  clock.advance(3600 * SECOND)
  expect(await db.get('off', 'a')).toMatchObject({ id: 'a' })
  expect(await db.expiresAt('off', 'a')).toBe(Infinity)
})

test('getAll and getAllKeys take a query and a count; count takes a query', async () => {
  const db = await openCore()
  await db.putAll('s', ['a', 'b', 'c', 'd'].map((id) => ({ id })))
  expect((await db.getAll('s', IDBKeyRange.bound('b', 'd'), 2)).map((item) => item.id)).toEqual(['b', 'c'])
  expect(await db.getAllKeys('s', null, 3)).toEqual(['a', 'b', 'c'])
  expect(await db.count('s', IDBKeyRange.upperBound('b'))).toBe(2)
})

test('putAll is all or nothing; add rejects ConstraintError only over a live item (SPEC §5)', async () => {
  const clock = manualClock(T0)
  const db = await openCore({ clock })
  await expectTtlError(db.putAll('s', [{ id: 'x' }, { id: 'y', ttl: 'soon' }]), 'INVALID_TTL')
  expect(await db.count('s')).toBe(0)
  await db.add('s', { id: 'a', ttl: 5 })
  await expectDomError(db.add('s', { id: 'a' }), 'ConstraintError')
  clock.advance(5 * SECOND)
  expect(await db.add('s', { id: 'a', v: 2 }), 'the dead item does not hold the key').toBe('a')
  expect(await db.get('s', 'a')).toMatchObject({ v: 2, _ts: (T0 + 5 * SECOND) / 1000 })
})

test('update merges into the live item and restarts its countdown; touch restarts it; both NOT_FOUND once it is dead (SPEC §3)', async () => {
  const clock = manualClock(T0)
  const db = await openCore({ clock })
  await db.put('s', { id: 'a', n: 1, ttl: 10 })
  clock.advance(8 * SECOND)
  expect(await db.update('s', 'a', { n: 2 })).toEqual({ id: 'a', n: 2, ttl: 10, _ts: (T0 + 8 * SECOND) / 1000 })
  clock.advance(8 * SECOND)
  expect(await db.touch('s', 'a')).toMatchObject({ n: 2, _ts: (T0 + 16 * SECOND) / 1000 })
  expect(await db.expiresAt('s', 'a')).toBe(T0 + 26 * SECOND)
  clock.advance(10 * SECOND)
  await expectTtlError(db.update('s', 'a', { n: 3 }), 'NOT_FOUND')
  await expectTtlError(db.touch('s', 'a'), 'NOT_FOUND')
})

test('delete takes a key or a range; clear empties the store', async () => {
  const db = await openCore()
  await db.putAll('s', ['a', 'b', 'c'].map((id) => ({ id })))
  await db.delete('s', 'a')
  await db.delete('s', IDBKeyRange.only('b'))
  expect(await db.getAllKeys('s')).toEqual(['c'])
  await db.clear('s')
  expect(await db.count('s')).toBe(0)
})

test('expiresAt is epoch ms, Infinity for an item that never expires, undefined without a live item (SPEC §7)', async () => {
  const clock = manualClock(T0)
  const db = await openCore({ clock })
  await db.putAll('s', [{ id: 'inherits' }, { id: 'never', ttl: -1 }])
  expect(await db.expiresAt('s', 'inherits')).toBe(T0 + 60 * SECOND)
  expect(await db.expiresAt('s', 'never')).toBe(Infinity)
  expect(await db.expiresAt('s', 'none')).toBeUndefined()
})

test('setDefaultTtl applies at once to inheriting items; what it killed stays dead when it is raised again; getDefaultTtl reads it back (SPEC §3)', async () => {
  const clock = manualClock(T0)
  const db = await openCore({ clock })
  await db.putAll('s', [{ id: 'inherits' }, { id: 'own', ttl: 100 }])
  clock.advance(20 * SECOND)
  await db.setDefaultTtl('s', 10)
  expect(await db.getDefaultTtl('s')).toBe(10)
  expect(await db.getAllKeys('s')).toEqual(['own'])
  await db.setDefaultTtl('s', 3600)
  expect(await db.get('s', 'inherits'), 'expired stays expired').toBeUndefined()
  await db.setDefaultTtl('s', null)
  expect(await db.getDefaultTtl('s')).toBeNull()
  expect(await db.get('s', 'own'), 'TTL off: nothing expires').toMatchObject({ id: 'own' })
  await expectTtlError(db.setDefaultTtl('s', 0), 'INVALID_TTL')
})

test('bad input: UNKNOWN_STORE, INVALID_TTL, INVALID_VALUE; CLOSED after close (SPEC §4)', async () => {
  const db = await openCore()
  await expectTtlError(db.get('nope', 'a'), 'UNKNOWN_STORE')
  await expectTtlError(db.put('nope', { id: 'a' }), 'UNKNOWN_STORE')
  await expectTtlError(db.put('s', { id: 'a', ttl: 1.5 }), 'INVALID_TTL')
  await expectTtlError(db.put('s', 'not an object' as never), 'INVALID_VALUE')
  await expectTtlError(db.purgeExpired('nope'), 'UNKNOWN_STORE')
  db.close()
  await expectTtlError(db.get('s', 'a'), 'CLOSED')
})

test('the declared default is written at open; a reopen with another version declares anew', async () => {
  const name = uniqueName('core')
  const db = await openCore({}, name)
  db.close()
  const again = await openCore({ version: 2, stores: { ...stores, s: { keyPath: 'id', defaultTtl: 5 } } }, name)
  expect(await again.getDefaultTtl('s')).toBe(5)
})

test.skipIf(typeof Worker === 'function')('where no Worker exists (Node), the core’s purgeExpired rejects saying the purge worker could not start; reads stay exact', async () => {
  const clock = manualClock(T0)
  const db = await openCore({ clock })
  await db.put('s', { id: 'a', ttl: 1 })
  clock.advance(SECOND)
  await expect(db.purgeExpired()).rejects.toMatchObject({ name: 'PurgeWorkerError', message: expect.stringContaining('purge worker could not be started') })
  expect(await db.get('s', 'a')).toBeUndefined()
})

test('a default changed by a full handle applies to the next read of a core handle, and the other way round', async () => {
  const clock = manualClock(T0)
  const full = await freshDB({ clock, stores })
  const db = await openCore({ clock }, full.raw.name)
  await db.put('s', { id: 'a' })
  clock.advance(30 * SECOND)
  await full.setDefaultTtl('s', 20)
  expect(await db.get('s', 'a'), "the full handle's new default killed it for the core").toBeUndefined()
  expect(await db.getDefaultTtl('s')).toBe(20)
  await full.put('s', { id: 'b' })
  clock.advance(10 * SECOND)
  await db.setDefaultTtl('s', 5)
  expect(await full.get('s', 'b'), "the core's new default killed it for the full handle").toBeUndefined()
  expect(await full.count('s')).toBe(0)
})

/** A full handle and a core one on a fresh database, one clock, and what the full handle's onExpire hears. */
async function fullAndCore() {
  const clock = manualClock(T0)
  const full = await freshDB({ clock, stores })
  const db = await openCore({ clock }, full.raw.name)
  const heard: ExpireEvent[] = []
  full.onExpire((event) => heard.push(event))
  return { clock, full, db, heard }
}

test("a core handle's write expires for a full handle, whose purge deletes it and reports it to onExpire; a full handle's expires for the core", async () => {
  const { clock, full, db, heard } = await fullAndCore()
  await db.putAll('s', [{ id: 'core', ttl: 10 }, { id: 'kept', ttl: -1 }])
  await full.put('s', { id: 'full', ttl: 10 })
  clock.advance(9 * SECOND)
  expect(await full.getAllKeys('s')).toEqual(['core', 'full', 'kept'])
  expect(await db.getAllKeys('s')).toEqual(['core', 'full', 'kept'])
  clock.advance(SECOND)
  expect(await full.getAllKeys('s')).toEqual(['kept'])
  expect(await db.getAllKeys('s')).toEqual(['kept'])
  expect(await db.expiresAt('s', 'full')).toBeUndefined()
  expect(await full.purgeExpired('s')).toBe(2)
  expect(await wrap(db.raw).getAllKeys('s')).toEqual(['kept'])
  await vi.waitFor(() => expect(heard.flatMap((event) => event.items.map((item) => item.key)).sort()).toEqual(['core', 'full']), SOON)
})

test("a core handle's add over a dead item claims it, and a full handle's onExpire hears it expired", async () => {
  const { clock, full, db, heard } = await fullAndCore()
  await full.put('s', { id: 'a', ttl: 1, v: 'old' })
  clock.advance(SECOND)
  const claimed = new Promise<ExpireEvent>((resolve) => full.onExpire(resolve))
  await db.add('s', { id: 'a', v: 'new' })
  await claimed
  expect(heard).toEqual([expect.objectContaining({ store: 's', reason: 'expired', items: [expect.objectContaining({ key: 'a', value: expect.objectContaining({ v: 'old' }) })] })])
  expect(await full.get('s', 'a')).toMatchObject({ v: 'new' })
})

test("a full handle's live query emits after a core handle's write commits", async () => {
  const full = await freshDB({ stores })
  const db = await openCore({}, full.raw.name)
  const seen: unknown[][] = []
  const stop = full.live('s').subscribe((items) => seen.push(items.map((item) => item.id)))
  await vi.waitFor(() => expect(seen).toEqual([[]]), SOON)
  await db.put('s', { id: 'a' })
  await vi.waitFor(() => expect(seen.at(-1)).toEqual(['a']), SOON)
  await db.delete('s', 'a')
  await vi.waitFor(() => expect(seen.at(-1)).toEqual([]), SOON)
  stop()
})

test("a core handle's write wakes a full handle's background purge, asleep for an hour, for what it makes due sooner", async () => {
  const removeLocks = ensureLocks()
  try {
    const clock = manualClock(T0)
    const purgeStores = { s: { keyPath: 'id', defaultTtl: 3600 } }
    const full = await freshDB({ clock, stores: purgeStores, purge: { mode: 'inline', maxIntervalMs: 600_000 } })
    const reports: PurgeReport[] = []
    full.onPurge((report) => reports.push(report))
    await vi.waitFor(() => expect(full.isPurger).toBe(true), SOON)
    // A slice that deleted something: the purger now sleeps until the next expiry, an hour away.
    await full.putAll('s', [{ id: 'first', ttl: 1 }, { id: 'long' }])
    clock.advance(SECOND)
    await vi.waitFor(() => expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(1), { timeout: 10_000, interval: 10 })
    const db = await openCore({ clock, stores: purgeStores }, full.raw.name)
    await db.put('s', { id: 'short', ttl: 1 })
    clock.advance(SECOND)
    await vi.waitFor(async () => expect(await wrap(db.raw).getAllKeys('s')).toEqual(['long']), { timeout: 10_000, interval: 10 })
  } finally {
    removeLocks()
  }
})

/**
 * A full handle that slides `s` and a core handle on its database, at T0 + 11 s: the full handle
 * read item `a` (written at T0, ttl 10 s) at T0 + 5 s and owes its touch, whose write waits for
 * the timer `touchWrite` holds. Dead by its stored _ts (T0 + 10 s), alive by the touch (T0 + 15 s).
 */
async function coreBesideAnOwedTouch(touchWrite: ReturnType<typeof captureTimers>) {
  const clock = manualClock(T0)
  const full = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } } })
  const db = await openCore({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, full.raw.name)
  await full.put('s', { id: 'a' })
  clock.advance(5 * SECOND)
  await full.get('s', 'a')
  clock.advance(6 * SECOND)
  expect(touchWrite.pending, 'the touch is owed, not written').toHaveLength(1)
  return { full, db }
}

test("a core handle's reads count the touches a full handle of the realm owes, and its counts have them written first (SPEC §7)", async () => {
  // The full handle's touch write waits for this timer: the test holds it, so the touch stays owed.
  const touchWrite = captureTimers('reads/touch')
  try {
    const { db } = await coreBesideAnOwedTouch(touchWrite)
    expect(await wrap(db.raw).get('s', 'a')).toMatchObject({ _ts: T0 / 1000 })
    // Dead by its stored _ts (T0 + 10 s), alive by the owed touch (T0 + 15 s).
    expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
    expect(await db.getAll('s')).toMatchObject([{ id: 'a' }])
    expect(await db.expiresAt('s', 'a')).toBe(T0 + 15 * SECOND)
    expect(await db.count('s')).toBe(1)
    expect(await wrap(db.raw).get('s', 'a'), "the core's count had the touch written first").toMatchObject({ _ts: (T0 + 5 * SECOND) / 1000 })
  } finally {
    touchWrite.restore()
  }
})

test("a core handle's read under way when a full handle of the realm closes owing a touch judges by that touch (SPEC §7)", async () => {
  // The full handle's touch write waits for this timer: the test holds it, so the touch stays owed until the close.
  const touchWrite = captureTimers('reads/touch')
  try {
    const { full, db } = await coreBesideAnOwedTouch(touchWrite)
    // Its transaction starts now, before the close starts writing the touch: it reads the stored
    // _ts (dead at T0 + 10 s), and the touch (alive until T0 + 15 s) must still count.
    const read = db.get('s', 'a')
    full.close()
    expect(await read).toMatchObject({ id: 'a' })
    expect(await db.count('s')).toBe(1)
    expect(await wrap(db.raw).get('s', 'a'), 'the close wrote the touch').toMatchObject({ _ts: (T0 + 5 * SECOND) / 1000 })
  } finally {
    touchWrite.restore()
  }
})

test('a call on a connection closed under the handle (raw.close()) rejects with InvalidStateError; it does not throw', async () => {
  const db = await openCore()
  db.raw.close()
  let call: Promise<unknown> | undefined
  expect(() => (call = db.get('s', 'k'))).not.toThrow()
  await expectDomError(call!, 'InvalidStateError')
})

// Firefox keeps evictOnQuota stores' values in their rows (src/layout/generation-index.ts): no generations there.
const withGenerations = { ...stores, big: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true } }
const coreStores = { ...stores, big: { keyPath: 'id', defaultTtl: 60 } }

/** Every call a core handle has on a store, each expected to reject with UNSUPPORTED naming it. */
async function expectRefused(db: core.TtlCoreDB<any>, store: string) {
  const calls = [
    db.get(store, 'a'),
    db.get(store, IDBKeyRange.lowerBound('a')),
    db.getAll(store),
    db.getAllKeys(store),
    db.count(store),
    db.expiresAt(store, 'a'),
    db.put(store, { id: 'c' }),
    db.add(store, { id: 'd' }),
    db.update(store, 'a', { v: 2 }),
    db.delete(store, 'a'),
    db.clear(store),
    db.setDefaultTtl(store, 5),
    db.getDefaultTtl(store),
  ]
  for (const call of calls) {
    const error = (await call.then(() => undefined, (e: unknown) => e)) as Error | undefined
    expect(error).toMatchObject({ name: 'TtlError', code: 'UNSUPPORTED' })
    expect(error!.message).toContain(`store "${store}" keeps its values in generations`)
    expect(error!.message).toContain("import { openTtlDB } from 'idb-ttl'")
  }
}

test.skipIf(IN_FIREFOX)('a core handle refuses, with UNSUPPORTED naming it, a store a full handle keeps in generations (evictOnQuota), and serves its other stores', async () => {
  const full = await freshDB({ stores: withGenerations })
  const name = full.raw.name
  try {
    expect(full.raw.transaction('big').store.indexNames.contains('$gen')).toBe(true)
    await full.put('big', { id: 'a', v: 1 })
    await full.put('s', { id: 'a', v: 1 })
    const db = await openCore({ stores: coreStores }, name)
    await expectRefused(db, 'big')
    expect(await db.get('s', 'a')).toMatchObject({ v: 1 })
    await db.put('s', { id: 'b' })
    expect(await db.getAllKeys('s')).toEqual(['a', 'b'])
    // Nothing the core did reached the refused store.
    expect(await full.getAll('big')).toEqual([expect.objectContaining({ id: 'a', v: 1 })])
  } finally {
    full.close()
    await deleteTtlDB(name)
  }
})

test.skipIf(IN_FIREFOX)('a store that gains generations by an upgrade of another handle while a core handle is open is refused from its reopening on; the other stores serve on', async () => {
  const name = uniqueName('core-gen')
  const db = await openCore({ stores: coreStores }, name)
  await db.put('big', { id: 'a', v: 1 })
  await db.put('s', { id: 'a', v: 1 })
  expect(await db.get('big', 'a')).toMatchObject({ v: 1 })
  const full = await openFull<any>(name, { version: 2, purge: { mode: 'off' }, stores: withGenerations })
  try {
    await full.put('big', { id: 'b', v: 2 })
    expect(full.raw.transaction('big').store.indexNames.contains('$gen')).toBe(true)
    await expectRefused(db, 'big')
    expect(await db.get('s', 'a')).toMatchObject({ v: 1 })
    await db.put('s', { id: 'b' })
    expect(await db.count('s')).toBe(2)
    expect((await full.getAll('big')).map((item) => item.v)).toEqual([1, 2])
  } finally {
    full.close()
    await deleteTtlDB(name)
  }
})
