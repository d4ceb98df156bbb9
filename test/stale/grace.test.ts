// SPEC §15, last-known data: a store declared `keepExpired: seconds` keeps an expired item on disk
// that long after it expired. Every ordinary read hides it from the instant it expires; only
// getStale / getAllStale return it, with when it expired (epoch ms); the purge deletes it when the
// grace ends; capacity and quota relief take such items before any live one; nothing but a new
// write of its key brings the key back. Node and the browser page.
import { openDB } from 'idb'
import { expect, test, vi } from 'vitest'
import { openTtlDB, type ExpireEvent, type StoreConfig } from '../../src/index.js'
import * as core from '../../src/core.js'
import { META_STORE } from '../../src/layout/expiry-index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { databaseExists, deleteAfter, expectTtlError, rawKeys, SECOND, T0 } from '../semantics/support.js'
import { smallDisk } from '../capacity/disk.js'
import { captureTimers } from '../live/timers.js'

const GRACE = 3600
const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 5 })

async function graceDB(config: StoreConfig = {}) {
  const clock = manualClock(T0)
  const stores = {
    s: { keyPath: 'id', defaultTtl: 10, keepExpired: GRACE, indexes: { byUser: { keyPath: 'user' } }, ...config },
    plain: { keyPath: 'id', defaultTtl: 10 },
  }
  const db = await freshDB({ clock, stores })
  return { clock, db }
}

/** Everything an ordinary read says of store `s`: none may show a stale item. */
async function ordinaryReads(db: Awaited<ReturnType<typeof graceDB>>['db'], key: IDBValidKey) {
  const iterated: unknown[] = []
  for await (const item of db.iterate('s')) iterated.push(item)
  const live: unknown[][] = []
  const off = db.live('s').subscribe((items) => live.push(items))
  await until(() => expect(live.length).toBeGreaterThan(0))
  off()
  return {
    get: await db.get('s', key),
    getRange: await db.get('s', IDBKeyRange.lowerBound(key)),
    getAll: await db.getAll('s'),
    getAllKeys: await db.getAllKeys('s'),
    count: await db.count('s'),
    countKey: await db.count('s', key),
    fromIndex: await db.getFromIndex('s', 'byUser', 'u1'),
    allFromIndex: await db.getAllFromIndex('s', 'byUser', 'u1'),
    keysFromIndex: await db.getAllKeysFromIndex('s', 'byUser', 'u1'),
    countFromIndex: await db.countFromIndex('s', 'byUser', 'u1'),
    iterated,
    live: live.at(-1),
    expiresAt: await db.expiresAt('s', key),
    stats: (await db.stats('s')).live,
    tx: await db.transaction('s', 'readonly', async (tx) => [await tx.get('s', key), await tx.getAll('s'), await tx.count('s'), await tx.getAllFromIndex('s', 'byUser', 'u1')]),
  }
}

const HIDDEN = {
  get: undefined,
  getRange: undefined,
  getAll: [],
  getAllKeys: [],
  count: 0,
  countKey: 0,
  fromIndex: undefined,
  allFromIndex: [],
  keysFromIndex: [],
  countFromIndex: 0,
  iterated: [],
  live: [],
  expiresAt: undefined,
  stats: 0,
  tx: [undefined, [], 0, []],
}

test.each([0, -5, 2.5, '60', Number.NaN, Infinity, 2 ** 31, true, null])('keepExpired: %s is refused with INVALID_OPTION naming the store and the option; nothing is created', async (value) => {
  const name = uniqueName('grace-options')
  const stores = { s: { keyPath: 'id', defaultTtl: 10 }, cache: { keyPath: 'id', defaultTtl: 10, keepExpired: value as number } }
  const error = await openTtlDB(name, { version: 1, stores, purge: { mode: 'off' } }).catch((e: unknown) => e)
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_OPTION' })
  expect((error as Error).message).toContain('"cache"')
  expect((error as Error).message).toContain('keepExpired')
  expect(await databaseExists(name)).toBe(false)
})

test('every ordinary read hides an item from the instant it expires; getStale returns it with when it expired', async () => {
  const { clock, db } = await graceDB()
  await db.put('s', { id: 'a', user: 'u1' })
  clock.advance(10 * SECOND - 1)
  expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
  expect(await db.getStale('s', 'a')).toBeUndefined() // live: not stale
  clock.advance(1)
  expect(await ordinaryReads(db, 'a')).toEqual(HIDDEN)
  expect(await db.getStale('s', 'a')).toEqual({ value: { id: 'a', user: 'u1', _ts: T0 / 1000 }, expiredAt: T0 + 10 * SECOND })
  expect(await db.getAllStale('s')).toEqual([{ key: 'a', value: { id: 'a', user: 'u1', _ts: T0 / 1000 }, expiredAt: T0 + 10 * SECOND }])
  expect((await db.stats('s')).expiredOnDisk).toBe(1)
})

test('an item with its own ttl: expiredAt is its own expiry; getAllStale takes a key or a range, in key order', async () => {
  const { clock, db } = await graceDB()
  await db.putAll('s', [{ id: 'c', ttl: 3 }, { id: 'a', ttl: 5 }, { id: 'b' }, { id: 'live', ttl: -1 }])
  clock.advance(20 * SECOND)
  const all = await db.getAllStale('s')
  expect(all.map((e) => [e.key, e.expiredAt])).toEqual([
    ['a', T0 + 5 * SECOND],
    ['b', T0 + 10 * SECOND],
    ['c', T0 + 3 * SECOND],
  ])
  expect((await db.getAllStale('s', IDBKeyRange.bound('b', 'z'))).map((e) => e.key)).toEqual(['b', 'c'])
  expect((await db.getAllStale('s', 'c')).map((e) => e.key)).toEqual(['c'])
  expect(await db.getStale('s', 'live')).toBeUndefined()
  expect(await db.getStale('s', 'nothing')).toBeUndefined()
  await expectTtlError(db.getStale('nope' as 's', 'a'), 'UNKNOWN_STORE')
})

test('a store without keepExpired has no stale items, even expired ones not purged yet', async () => {
  const { clock, db } = await graceDB()
  await db.put('plain', { id: 'a' })
  clock.advance(11 * SECOND)
  expect(await rawKeys(db, 'plain')).toEqual(['a'])
  expect(await db.getStale('plain', 'a')).toBeUndefined()
  expect(await db.getAllStale('plain')).toEqual([])
})

test('the purge deletes a stale item when its grace ends, not before, and reports it then', async () => {
  const { clock, db } = await graceDB()
  const heard: ExpireEvent[] = []
  db.onExpire((e) => heard.push(e))
  await db.putAll('s', [{ id: 'a' }, { id: 'own', ttl: 2 }])
  await db.put('plain', { id: 'p' })
  clock.advance(10 * SECOND)
  expect(await db.purgeExpired()).toBe(1) // the plain store's
  clock.set(T0 + (2 + GRACE) * SECOND - 1)
  expect(await db.purgeExpired('s')).toBe(0)
  expect(await rawKeys(db, 's')).toEqual(['a', 'own'])
  clock.advance(1)
  expect(await db.purgeExpired('s')).toBe(1)
  expect(await db.getAllStale('s')).toMatchObject([{ key: 'a' }])
  clock.set(T0 + (10 + GRACE) * SECOND - 1)
  expect(await db.purgeExpired('s')).toBe(0)
  expect(await db.getStale('s', 'a')).toMatchObject({ expiredAt: T0 + 10 * SECOND })
  clock.advance(1)
  expect(await db.getStale('s', 'a')).toBeUndefined() // its grace is over: not stale, whether on disk or not
  expect(await db.purgeExpired('s')).toBe(1)
  expect(await rawKeys(db, 's')).toEqual([])
  await until(() => expect(heard.filter((e) => e.store === 's').flatMap((e) => e.items.map((i) => i.key))).toEqual(['own', 'a']))
  expect(heard.every((e) => e.reason === 'expired')).toBe(true)
})

test('maxEntries: stale items count against the cap and go first; a live item goes only when the live alone overfill it', async () => {
  const { clock, db } = await graceDB({ maxEntries: 3 })
  await db.putAll('s', [{ id: 's1' }, { id: 's2' }])
  clock.advance(10 * SECOND) // s1, s2 stale
  await db.putAll('s', [{ id: 'l1' }, { id: 'l2' }])
  expect(await db.purgeExpired('s')).toBe(1) // 4 held, cap 3: one stale goes, no live one
  expect(await db.getAll('s')).toMatchObject([{ id: 'l1' }, { id: 'l2' }])
  expect((await db.getAllStale('s')).map((e) => e.key)).toEqual(['s2'])
  clock.advance(SECOND)
  await db.putAll('s', [{ id: 'l3' }, { id: 'l4' }])
  expect(await db.purgeExpired('s')).toBe(2) // the stale one, then the oldest live one
  expect(await db.getAllStale('s')).toEqual([])
  expect(await db.getAllKeys('s')).toEqual(['l2', 'l3', 'l4'])
})

test('quota relief takes stale items before any live item of any store', async () => {
  const clock = manualClock(T0)
  const stores = {
    s: { keyPath: 'id', defaultTtl: 10, keepExpired: GRACE },
    cache: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true },
  }
  const db = await freshDB({ clock, stores })
  const disk = smallDisk(8)
  await db.putAll('cache', [{ id: 1 }, { id: 2 }, { id: 3 }])
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }, { id: 'e' }])
  clock.advance(10 * SECOND)
  expect(disk.room).toBe(0)
  await db.putAll('s', [{ id: 'new1' }, { id: 'new2' }])
  expect(await db.getAllKeys('cache')).toEqual([1, 2, 3])
  expect(await db.getAllKeys('s')).toEqual(['new1', 'new2'])
  expect(await db.getAllStale('s')).toEqual([])
})

test('a write of its key makes a new live item; add succeeds over a stale item; update and touch find nothing', async () => {
  const { clock, db } = await graceDB()
  await db.putAll('s', [{ id: 'a', v: 1 }, { id: 'b', v: 1 }, { id: 'c', v: 1 }])
  clock.advance(10 * SECOND)
  await expectTtlError(db.update('s', 'c', { v: 2 }), 'NOT_FOUND')
  await expectTtlError(db.touch('s', 'c'), 'NOT_FOUND')
  expect(await db.getStale('s', 'c')).toMatchObject({ value: { v: 1 }, expiredAt: T0 + 10 * SECOND })
  expect(await db.get('s', 'c')).toBeUndefined()
  await db.put('s', { id: 'a', v: 2 })
  await db.add('s', { id: 'b', v: 2 })
  expect(await db.getAll('s')).toMatchObject([{ id: 'a', v: 2 }, { id: 'b', v: 2 }])
  expect(await db.getStale('s', 'a')).toBeUndefined()
  expect((await db.getAllStale('s')).map((e) => e.key)).toEqual(['c'])
})

test('setDefaultTtl never brings a stale item back: longer, -1 or off; a shorter default starts the grace of what it killed at the change', async () => {
  const { clock, db } = await graceDB()
  await db.put('s', { id: 'old' })
  clock.advance(10 * SECOND)
  for (const next of [100_000, -1, null, 100_000] as const) {
    await db.setDefaultTtl('s', next)
    expect(await db.get('s', 'old')).toBeUndefined()
    expect(await db.count('s')).toBe(0)
    expect(await db.getStale('s', 'old')).toMatchObject({ value: { id: 'old' } })
  }
  await db.put('s', { id: 'young' })
  clock.advance(5 * SECOND)
  const changed = clock.now
  await db.setDefaultTtl('s', 2) // kills 'young', written 5 s ago
  expect(await db.get('s', 'young')).toBeUndefined()
  expect(await db.getStale('s', 'young')).toEqual({ value: expect.objectContaining({ id: 'young' }), expiredAt: changed })
  clock.set(changed + GRACE * SECOND - 1)
  expect(await db.purgeExpired('s')).toBe(0)
  expect(await db.getStale('s', 'young')).toBeDefined()
  clock.advance(1)
  expect(await db.purgeExpired('s')).toBe(2)
  expect(await rawKeys(db, 's')).toEqual([])
})

test('a touchOnRead store: a get of a stale item touches nothing, and the item stays stale', async () => {
  const { clock, db } = await graceDB({ touchOnRead: true })
  await db.put('s', { id: 'a' })
  clock.advance(10 * SECOND)
  expect(await db.get('s', 'a')).toBeUndefined()
  expect(await db.getAll('s')).toEqual([])
  const name = db.raw.name
  await db.close()
  const raw = await openDB(name)
  try {
    expect((await raw.get('s', 'a'))._ts).toBe(T0 / 1000)
  } finally {
    raw.close()
  }
})

test('the grace lives in the settings: a core handle declares it and hides stale items; a declaration without it removes it', async () => {
  const name = deleteAfter(uniqueName('grace-settings'))
  const clock = manualClock(T0)
  const declared = { s: { keyPath: 'id', defaultTtl: 10, keepExpired: GRACE } }
  const settings = async () => {
    const raw = await openDB(name)
    try {
      return await raw.get(META_STORE, 's')
    } finally {
      raw.close()
    }
  }
  const full = await openTtlDB(name, { version: 1, stores: declared, clock, purge: { mode: 'off' } })
  await full.put('s', { id: 'a' })
  expect(await settings()).toEqual({ defaultTtl: 10, declared: 10, deadTs: null, deadExpiry: null, keepExpired: GRACE })
  full.close()
  clock.advance(10 * SECOND)
  const coreDb = await core.openTtlDB(name, { version: 1, stores: declared, clock, purge: { mode: 'off' } })
  expect(await coreDb.get('s', 'a')).toBeUndefined()
  expect(await coreDb.count('s')).toBe(0)
  coreDb.close()
  expect(await settings()).toEqual({ defaultTtl: 10, declared: 10, deadTs: null, deadExpiry: null, keepExpired: GRACE })
  const again = await openTtlDB(name, { version: 1, stores: declared, clock, purge: { mode: 'off' } })
  expect(await again.purgeExpired('s')).toBe(0)
  expect(await again.getStale('s', 'a')).toBeDefined()
  again.close()
  const plain = await openTtlDB(name, { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 10 } }, clock, purge: { mode: 'off' } })
  try {
    expect(await settings()).toEqual({ defaultTtl: 10, declared: 10, deadTs: null, deadExpiry: null })
    expect(await plain.getStale('s', 'a')).toBeUndefined()
    expect(await plain.purgeExpired('s')).toBe(1)
  } finally {
    plain.close()
  }
})

test('a grace declared on a store with expired items counts them as expired at that instant', async () => {
  const name = deleteAfter(uniqueName('grace-added'))
  const clock = manualClock(T0)
  const before = await openTtlDB(name, { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 10 } }, clock, purge: { mode: 'off' } })
  await before.put('s', { id: 'a' })
  before.close()
  clock.advance(20 * SECOND)
  const db = await openTtlDB(name, { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 10, keepExpired: 60 } }, clock, purge: { mode: 'off' } })
  try {
    expect(await db.getStale('s', 'a')).toMatchObject({ expiredAt: T0 + 20 * SECOND })
    clock.advance(60 * SECOND - 1)
    expect(await db.purgeExpired('s')).toBe(0)
    clock.advance(1)
    expect(await db.purgeExpired('s')).toBe(1)
  } finally {
    db.close()
  }
})

test('stores without a grace keep the settings they had: a change of default writes no grace fields', async () => {
  const { db } = await graceDB()
  await db.setDefaultTtl('plain', 20)
  await db.setDefaultTtl('s', 20)
  const raw = await openDB(db.raw.name)
  try {
    expect(Object.keys(await raw.get(META_STORE, 'plain')).sort()).toEqual(['deadExpiry', 'deadTs', 'declared', 'defaultTtl'])
    expect(Object.keys(await raw.get(META_STORE, 's')).sort()).toEqual(['changedAt', 'deadExpiry', 'deadTs', 'declared', 'defaultTtl', 'keepExpired'])
  } finally {
    raw.close()
  }
})

test('delete and clear remove stale items too', async () => {
  const { clock, db } = await graceDB()
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }, { id: 'c' }])
  clock.advance(10 * SECOND)
  await db.delete('s', 'a')
  expect(await rawKeys(db, 's')).toEqual(['b', 'c'])
  await db.clear('s')
  expect(await db.getAllStale('s')).toEqual([])
  expect(await rawKeys(db, 's')).toEqual([])
})

test('a touchOnRead store: an item a read touched is judged by the touch it is owed, before the touch is written', async () => {
  const timers = captureTimers('reads/touch')
  try {
    const { clock, db } = await graceDB({ touchOnRead: true, keepExpired: 5 })
    await db.put('s', { id: 'a' })
    clock.advance(9 * SECOND)
    expect(await db.get('s', 'a')).toMatchObject({ id: 'a' }) // owes a touch: now expires at 19 s
    clock.advance(11 * SECOND) // 20 s: past the stored expiry's grace (15 s), within the touched one's (24 s)
    expect(await db.getStale('s', 'a')).toMatchObject({ expiredAt: T0 + 19 * SECOND })
    expect((await db.getAllStale('s')).map((e) => [e.key, e.expiredAt])).toEqual([['a', T0 + 19 * SECOND]])
  } finally {
    timers.restore()
  }
})
