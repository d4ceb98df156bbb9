/**
 * The plugin's database on disk (src/workbox/layout.ts): one written by an earlier version of the
 * plugin, built on idb-ttl's full handle (`openTtlDB`, as these tests write it), is read as it is,
 * settings and watermarks included (SPEC §3); one of another layout under its name is refused with
 * a TtlError and left as it was, never misread.
 */
import { expect, test } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { TtlExpirationPlugin } from '../../src/workbox/index.js'
import { expectTtlError, SECOND, T0 } from '../semantics/support.js'
import { API, setup, storage } from './setup.js'
import { cacheFirst, FakeEvent } from './strategy.js'

/** Writes entries for `paths` into the database of `cacheName` through idb-ttl's handle, as the plugin on it did, and their responses into the cache. */
async function cachedBefore(cacheName: string, clock: () => number, defaultTtl: number, paths: Record<string, number | undefined>) {
  const db = await openTtlDB(`idb-ttl-workbox:${cacheName}`, { clock, stores: { entries: { keyPath: 'url', defaultTtl } } })
  for (const [path, ttl] of Object.entries(paths)) {
    await db.put('entries', { url: API + path, at: clock(), ttl })
    await storage().cache(cacheName).put(API + path, new Response(`cached before: ${path}`))
  }
  db.close()
}

test("a database the plugin wrote on idb-ttl's handle is read as it is: what a changed maxAgeSeconds left dead there stays dead, the live entries are served", async () => {
  const { clock, get, cacheName } = setup({ maxAgeSeconds: 3600 })
  await cachedBefore(cacheName, clock, 60, { a: undefined, b: 7200 })
  clock.advance(61 * SECOND)
  // The worker's next version declared 3600: the handle's open kept `a`, dead under 60, dead.
  ;(await openTtlDB(`idb-ttl-workbox:${cacheName}`, { clock, stores: { entries: { keyPath: 'url', defaultTtl: 3600 } } })).close()
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'network' })
  expect(await get('b')).toEqual({ body: 'cached before: b', from: 'cache' })
  clock.advance(3600 * SECOND)
  expect(await get('b')).toEqual({ body: 'cached before: b', from: 'cache' })
})

test('a maxAgeSeconds changed since the database was written applies to its entries at once, and what the old one left dead stays dead under a longer one', async () => {
  const { plugin, clock, fetch, cacheName } = setup({ maxAgeSeconds: 60 })
  await cachedBefore(cacheName, clock, 3600, { a: undefined, b: undefined })
  clock.advance(120 * SECOND)
  // A read with no event to purge in: the entries stay on disk, dead under 60.
  const request = new Request(API + 'a')
  expect(await plugin.cachedResponseWillBeUsed({ cacheName, request, cachedResponse: await storage().cache(cacheName).match(request) })).toBeNull()
  // The worker's next version gives the cache 3600 s again: a and b died under 60, and stay dead.
  const longer = new TtlExpirationPlugin({ maxAgeSeconds: 3600, clock })
  try {
    expect(await cacheFirst(longer, cacheName, fetch, API + 'b')).toEqual({ body: '/api/b #1', from: 'network' })
    expect(await cacheFirst(longer, cacheName, fetch, API + 'a')).toEqual({ body: '/api/a #2', from: 'network' })
    expect(await cacheFirst(longer, cacheName, fetch, API + 'a')).toEqual({ body: '/api/a #2', from: 'cache' })
  } finally {
    await longer.deleteCacheAndMetadata()
  }
})

/** Resolves `request`'s result (a raw IndexedDB request). */
const result = <T>(request: IDBRequest<T>) => new Promise<T>((resolve, reject) => ((request.onsuccess = () => resolve(request.result)), (request.onerror = () => reject(request.error))))

test('a database in the layout idb-ttl 0.1 gave it, written here by hand, literally, is read as it is (the layout is pinned: changing it needs an upgrade)', async () => {
  const { clock, get, cacheName } = setup({ maxAgeSeconds: 60 })
  const request = indexedDB.open(`idb-ttl-workbox:${cacheName}`)
  request.onupgradeneeded = () => {
    const db = request.result
    db.createObjectStore('__idb_ttl_meta').put({ defaultTtl: 60, declared: 60, deadTs: null, deadExpiry: null }, 'entries')
    db.createObjectStore('__idb_ttl_journal')
    const entries = db.createObjectStore('entries', { keyPath: 'url' })
    entries.createIndex('$ttl', '$ttl')
    const ts = T0 / SECOND
    // Inheriting: the mark is `_ts`; own ttl: 1e11 + _ts + ttl; c expired two minutes ago.
    entries.put({ url: API + 'a', at: T0, _ts: ts, $ttl: ts })
    entries.put({ url: API + 'b', at: T0, ttl: 600, _ts: ts, $ttl: 1e11 + ts + 600 })
    entries.put({ url: API + 'c', at: T0 - 120 * SECOND, _ts: ts - 120, $ttl: ts - 120 })
  }
  ;(await result(request)).close()
  for (const path of ['a', 'b', 'c']) await storage().cache(cacheName).put(API + path, new Response(`cached before: ${path}`))
  clock.advance(30 * SECOND)
  expect(await get('a')).toEqual({ body: 'cached before: a', from: 'cache' })
  expect(await get('b')).toEqual({ body: 'cached before: b', from: 'cache' })
  expect(await get('c')).toEqual({ body: '/api/c #1', from: 'network' })
  clock.advance(31 * SECOND)
  expect(await get('a')).toEqual({ body: '/api/a #2', from: 'network' })
  expect(await get('b')).toEqual({ body: 'cached before: b', from: 'cache' })
})

test("idb-ttl's handle reads a database the plugin wrote as the plugin does: the same entries live, an own ttl kept, the expired ones left out", async () => {
  const { clock, get, cacheName } = setup({ maxAgeSeconds: 60, ttl: ({ request }) => (request.url.endsWith('/long') ? 600 : undefined) })
  await get('short')
  await get('long')
  clock.advance(61 * SECOND)
  const db = await openTtlDB(`idb-ttl-workbox:${cacheName}`, { clock, stores: { entries: { keyPath: 'url', defaultTtl: 60 } } })
  try {
    expect(await db.getAllKeys('entries')).toEqual([API + 'long'])
    expect(await db.get('entries', API + 'long')).toMatchObject({ url: API + 'long', ttl: 600 })
  } finally {
    db.close()
  }
})

test('a database of another layout under the plugin\'s name is refused with TtlError SCHEMA_MISMATCH naming it, and left as it was: nothing is served from the cache', async () => {
  const { plugin, get, cacheName } = setup({ maxAgeSeconds: 60 })
  const name = `idb-ttl-workbox:${cacheName}`
  const created = indexedDB.open(name)
  created.onupgradeneeded = () => created.result.createObjectStore('entries', { keyPath: 'id' }).put({ id: API + 'a', expires: Infinity })
  ;(await result(created)).close()
  await storage().cache(cacheName).put(API + 'a', new Response('cached by someone else'))
  try {
    expect(await get('a')).toEqual({ body: '/api/a #1', from: 'network' })
    const request = new Request(API + 'a')
    const recording = plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('a'), event: new FakeEvent() })
    await expectTtlError(recording, 'SCHEMA_MISMATCH')
    await expect(recording).rejects.toThrow(`database "${name}" was not written by idb-ttl/workbox`)
    const db = await result(indexedDB.open(name))
    expect([db.version, [...db.objectStoreNames]]).toEqual([1, ['entries']])
    db.close()
  } finally {
    await result(indexedDB.deleteDatabase(name))
  }
})
