// SPEC §9 maxEntries and evict: the purge trims a store back to its cap, in the store's order,
// and reports what it evicted. Node and the browser page.
import { deleteDB, openDB, unwrap } from 'idb'
import { expect, test, vi } from 'vitest'
import { openTtlDB, type ExpireEvent, type PurgeReport, type StoreConfig } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { purgeBatch, purgeSlice } from '../../src/purge/purge.js'
import { IDLE_GROWTH } from '../../src/rules/purge-options.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 5 })

test.each([
  [{ maxEntries: 0 }, 'maxEntries'],
  [{ maxEntries: 2.5 }, 'maxEntries'],
  [{ maxEntries: '3' }, 'maxEntries'],
  [{ maxEntries: 3, evict: 'lru' }, 'evict'],
  [{ evictOnQuota: 'yes' }, 'evictOnQuota'],
  [{ indexes: { $ts: { keyPath: 'x' } } }, '$ts'],
])('store option %o is refused with INVALID_OPTION naming the store and %s; nothing is created', async (options, named) => {
  const name = uniqueName('cap-options')
  const stores = { s: { keyPath: 'id', defaultTtl: 10 }, capped: { keyPath: 'id', ...(options as StoreConfig) } }
  const error = await openTtlDB(name, { version: 1, stores, purge: { mode: 'off' } }).catch((e: unknown) => e)
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_OPTION' })
  expect((error as Error).message).toContain(named)
  expect((error as Error).message).toContain('"capped"')
  expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(name)
})

test('a capacity added to an existing store needs the version raised (it adds an index over _ts)', async () => {
  const name = uniqueName('cap-upgrade')
  const first = await openTtlDB(name, { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 10 } }, purge: { mode: 'off' } })
  await first.putAll('s', [{ id: 1 }, { id: 2 }, { id: 3 }])
  first.close()
  const capped = { s: { keyPath: 'id', defaultTtl: 10, maxEntries: 2 } }
  await expect(openTtlDB(name, { version: 1, stores: capped, purge: { mode: 'off' } })).rejects.toMatchObject({ code: 'SCHEMA_MISMATCH' })
  const db = await openTtlDB(name, { version: 2, stores: capped, purge: { mode: 'off' } })
  try {
    expect(await db.purgeExpired('s')).toBe(1)
    expect(await db.count('s')).toBe(2)
  } finally {
    db.close()
    await deleteDB(name)
  }
})

test("'oldest' evicts the least recently written first, whatever their ttl; the purge reports it", async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 3 } } })
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  for (const [id, ttl] of [['a', 60], ['b', -1], ['c', undefined], ['d', 10], ['e', undefined]] as const) {
    await db.put('s', { id, ttl })
    clock.advance(1_000)
  }
  await db.put('s', { id: 'a', ttl: 60 }) // rewritten: now the most recent
  expect(await db.count('s')).toBe(5) // reads may see more than the cap until the purge runs
  expect(await db.purgeExpired('s')).toBe(2)
  expect(await db.getAllKeys('s')).toEqual(['a', 'd', 'e'])
  expect(reports).toMatchObject([{ store: 's', deleted: 2 }])
})

test("'oldest' among items written in the same second evicts the one written first, whatever the keys", async () => {
  // _ts is whole seconds: ties are broken by when each item was written, not by its key.
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 2 } } })
  await db.put('s', { id: 'm' })
  await db.put('s', { id: 'z' })
  await db.put('s', { id: 'a' })
  expect(await db.purgeExpired('s')).toBe(1)
  expect(await db.getAllKeys('s')).toEqual(['a', 'z'])
  await db.putAll('s', [{ id: 'y' }, { id: 'b' }])
  expect(await db.purgeExpired('s')).toBe(2)
  expect(await db.getAllKeys('s')).toEqual(['b', 'y'])
  await db.touch('s', 'b') // a write too: now more recent than y
  await db.put('s', { id: 'x' })
  expect(await db.purgeExpired('s')).toBe(1)
  expect(await db.getAllKeys('s')).toEqual(['b', 'x'])
})

test("'oldest' counts a read of a touchOnRead store as a write, at the moment of the read", async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 2, touchOnRead: true } } })
  await db.put('s', { id: 'a' })
  clock.advance(1_000)
  await db.put('s', { id: 'b' })
  clock.advance(100)
  expect(await db.get('s', 'a')).toMatchObject({ _ts: (clock.now - 100) / 1000 }) // touched, in b's second, after b
  clock.advance(100)
  await db.put('s', { id: 'c' })
  expect(await db.purgeExpired('s')).toBe(1)
  expect(await db.getAllKeys('s')).toEqual(['a', 'c'])
})

test("'soonest' evicts the items closest to expiry first, those that never expire last", async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 100, maxEntries: 2, evict: 'soonest' } } })
  await db.putAll('s', [
    { id: 'never-old', ttl: -1 },
    { id: 'inherits', ttl: null }, // expires in 100 s
    { id: 'own-50', ttl: 50 },
    { id: 'own-500', ttl: 500 },
  ])
  clock.advance(1_000)
  await db.put('s', { id: 'never-new', ttl: -1 })
  expect(await db.purgeExpired('s')).toBe(3)
  expect(await db.getAllKeys('s')).toEqual(['never-new', 'never-old'])
  // Among items that never expire, the least recently written go first.
  await db.setDefaultTtl('s', -1)
  await db.put('s', { id: 'x' })
  expect(await db.purgeExpired('s')).toBe(1)
  expect(await db.getAllKeys('s')).toEqual(['never-new', 'x'])
})

test('a store whose TTL is off keeps its cap; expired items go before any live one is evicted', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { off: { keyPath: 'id', maxEntries: 2 }, s: { keyPath: 'id', defaultTtl: 10, maxEntries: 2 } } })
  await db.putAll('off', [{ id: 1 }, { id: 2 }, { id: 3 }])
  await db.putAll('s', [{ id: 'dies' }, { id: 'dies too' }, { id: 'stays', ttl: 60 }])
  clock.advance(10_000)
  await db.putAll('s', [{ id: 'new' }])
  expect(await db.purgeExpired()).toBe(3)
  expect(await db.getAllKeys('off')).toEqual([2, 3])
  expect(await db.getAllKeys('s')).toEqual(['new', 'stays'])
})

test("evictions are reported to onExpire with reason 'evicted' and the values as stored", async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, maxEntries: 1 } } })
  const heard: ExpireEvent[] = []
  db.onExpire((e) => heard.push(e))
  await db.put('s', { id: 'old', v: 1 })
  await db.put('s', { id: 'expiring', ttl: 1 })
  clock.advance(1_000)
  await db.put('s', { id: 'new' })
  await db.purgeExpired('s')
  await until(() => expect(heard).toHaveLength(2))
  expect(heard).toEqual([
    { store: 's', reason: 'expired', items: [{ key: 'expiring', value: { id: 'expiring', ttl: 1, _ts: clock.now / 1000 - 1 } }] },
    { store: 's', reason: 'evicted', items: [{ key: 'old', value: { id: 'old', v: 1, _ts: clock.now / 1000 - 1 } }] },
  ])
  expect(await db.getAllKeys('s')).toEqual(['new'])
})

test('the background purge trims a capped store soon after the write that overfilled it, in batches', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 10 } }, purge: { mode: 'inline', batchSize: 7, maxIntervalMs: 600_000 } })
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  await until(() => expect(db.isPurger).toBe(true))
  await db.putAll('s', Array.from({ length: 25 }, (_, i) => ({ id: i })))
  await until(async () => expect(await db.raw.count('s')).toBe(10))
  expect(await db.getAllKeys('s')).toEqual(Array.from({ length: 10 }, (_, i) => 15 + i))
  expect(reports.reduce((n, r) => n + (r.evicted ?? 0), 0)).toBe(15)
  await db.put('s', { id: 'one more' })
  await until(async () => expect(await db.raw.count('s')).toBe(10))
  expect(await db.get('s', 15)).toBeUndefined()
})

test('the cap is kept in the settings: a purger whose page does not declare the store still trims it', async () => {
  const clock = manualClock()
  const name = uniqueName('cap-settings')
  const capped = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 2 } } }, name)
  const raw = await openDB(name)
  expect((await raw.get('__idb_ttl_meta', 's')).capacity).toEqual({ maxEntries: 2, evict: 'oldest', evictOnQuota: false })
  raw.close()
  // Another app version, which declares none of these stores, purges the database.
  const other = await freshDB({ clock, stores: {}, purge: { mode: 'inline', maxIntervalMs: 600_000 } }, name)
  await until(() => expect(other.isPurger).toBe(true))
  await capped.putAll('s', [{ id: 1 }, { id: 2 }, { id: 3 }])
  await until(async () => expect(await capped.raw.count('s')).toBe(2))
  expect(await capped.getAllKeys('s')).toEqual([2, 3])
})

test('a cap raised between a batch reading the settings and deleting is the one the batch evicts to: no live item beyond the new cap is lost', async () => {
  const name = uniqueName('cap-raised')
  const stores = { s: { keyPath: 'id', defaultTtl: 60, maxEntries: 2 } }
  const db = await freshDB({ stores }, name)
  await db.putAll('s', [{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }])
  const native = unwrap(db.raw) as IDBDatabase
  let asked = 0
  // The batch asks for the connection twice: for the read-only settings read, then for its
  // read-write transaction. In between, another app version raises the cap to 10.
  const connect = async () => {
    if (asked++ === 1) {
      const tx = native.transaction('__idb_ttl_meta', 'readwrite')
      const meta = tx.objectStore('__idb_ttl_meta')
      const state = await new Promise<any>((resolve) => (meta.get('s').onsuccess = (e) => resolve((e.target as IDBRequest).result)))
      meta.put({ ...state, capacity: { ...state.capacity, maxEntries: 10 } }, 's')
      await new Promise((resolve) => (tx.oncomplete = resolve))
    }
    return native
  }
  const batch = await purgeBatch(connect, 's', Date.now())
  expect(batch.evicted).toEqual([])
  expect(await db.count('s')).toBe(4)
})

test("a background slice evicts a trim's surplus in one batch, up to IDLE_GROWTH × batchSize (each batch reads the second it stops in again)", async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 10 } }, purge: { mode: 'off' } })
  const connect = async () => unwrap(db.raw)
  // No time for a second batch: what one batch takes is what the slice reports.
  const options = { batchSize: 7, sliceMs: 0 }
  await db.putAll('s', Array.from({ length: 25 }, (_, i) => ({ id: i })))
  const [first] = await purgeSlice(connect, ['s'], clock(), options, new Map())
  expect(first).toMatchObject({ evicted: 15, more: false })
  expect(await db.getAllKeys('s')).toEqual(Array.from({ length: 10 }, (_, i) => 15 + i))
  await db.putAll('s', Array.from({ length: 40 }, (_, i) => ({ id: 100 + i })))
  const [second] = await purgeSlice(connect, ['s'], clock(), options, new Map())
  expect(second).toMatchObject({ evicted: 7 * IDLE_GROWTH, more: true })
  expect(await db.raw.count('s')).toBe(50 - 7 * IDLE_GROWTH)
})
