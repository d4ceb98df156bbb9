/**
 * SPEC §13 `TtlExpirationPlugin`, its callbacks driven as Workbox's CacheFirst drives them
 * (strategy.ts) over a Cache Storage stand-in (fake-caches.ts), under a clock moved by hand.
 * test/browser/workbox.test.ts runs it in a real service worker with Workbox's strategies.
 */
import { expect, onTestFinished, test, vi } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { TtlExpirationPlugin, type TtlExpirationPluginOptions } from '../../src/workbox/index.js'
import { manualClock, SOON } from '../helpers.js'
import { expectTtlError, SECOND, T0 } from '../semantics/support.js'
import { API, setup, storage } from './setup.js'
import { WriteGuard } from '../../src/workbox/writes.js'
import { FakeEvent } from './strategy.js'

test('a response is served from the cache until its entry expires, and never once after (the strategy goes to the network)', async () => {
  const { clock, get, fetch } = setup({ maxAgeSeconds: 60 })
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'network' })
  clock.advance(59 * SECOND)
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'cache' })
  clock.advance(1 * SECOND)
  expect(await get('a')).toEqual({ body: '/api/a #2', from: 'network' })
  expect(await get('a')).toEqual({ body: '/api/a #2', from: 'cache' })
  expect(fetch.count()).toBe(2)
})

test('a response cached before the plugin (no entry) is not served: fetched and cached anew, then served', async () => {
  const { get, cacheName } = setup({ defaultTtl: 60 })
  await storage().cache(cacheName).put(API + 'old', new Response('cached by an earlier worker'))
  expect(await get('old')).toEqual({ body: '/api/old #1', from: 'network' })
  expect(await get('old')).toEqual({ body: '/api/old #1', from: 'cache' })
})

test('ttl as a function of request and response: each response lives its own time; -1 for ever, 0 never served', async () => {
  const lifetimes: Record<string, number | undefined> = { short: 10, forever: -1, never: 0, default: undefined }
  const { clock, get, cached } = setup({ defaultTtl: 60, ttl: ({ request, response }) => (response.ok ? lifetimes[request.url.slice(API.length)] : 0) })
  for (const path of Object.keys(lifetimes)) await get(path)
  // A response that may never be served leaves the cache at once.
  expect(cached().sort()).toEqual([API + 'default', API + 'forever', API + 'short'])
  expect((await get('never')).from).toBe('network')
  clock.advance(10 * SECOND)
  expect((await get('short')).from).toBe('network')
  expect((await get('default')).from).toBe('cache')
  clock.advance(3600 * SECOND)
  expect((await get('default')).from).toBe('network')
  expect((await get('forever')).from).toBe('cache')
})

test("ttl: 'cache-control' reads max-age less Age; no-store and no-cache are never served; no header: the default", async () => {
  const headers: Record<string, HeadersInit> = {
    'max-age': { 'cache-control': 'public, max-age=30', age: '10' },
    'no-store': { 'cache-control': 'no-store' },
    'no-cache': { 'cache-control': 'No-Cache' },
    none: {},
  }
  const { clock, get } = setup({ defaultTtl: 100, ttl: 'cache-control' }, (url) => headers[url.slice(API.length)])
  for (const path of Object.keys(headers)) await get(path)
  expect((await get('max-age')).from).toBe('cache')
  expect((await get('no-store')).from).toBe('network')
  expect((await get('no-cache')).from).toBe('network')
  clock.advance(20 * SECOND)
  expect((await get('max-age')).from).toBe('network')
  expect((await get('none')).from).toBe('cache')
  clock.advance(80 * SECOND)
  expect((await get('none')).from).toBe('network')
})

test.each([{ touchOnRead: true }, { maxAgeFrom: 'last-used' as const }])('%o: each use restarts the countdown (sliding expiry)', async (sliding) => {
  const { clock, get } = setup({ defaultTtl: 60, ...sliding })
  await get('a')
  for (let i = 0; i < 3; i++) {
    clock.advance(50 * SECOND)
    expect(await get('a')).toEqual({ body: '/api/a #1', from: 'cache' })
  }
  clock.advance(60 * SECOND)
  expect((await get('a')).from).toBe('network')
})

test("without sliding expiry ('last-fetched', the default), uses do not extend a response's life", async () => {
  const { clock, get } = setup({ defaultTtl: 60, maxAgeFrom: 'last-fetched' })
  await get('a')
  clock.advance(50 * SECOND)
  expect((await get('a')).from).toBe('cache')
  clock.advance(10 * SECOND)
  expect((await get('a')).from).toBe('network')
})

test("an expired response leaves Cache Storage when the purge deletes its entry, inside the event of a later request", async () => {
  const { clock, get, cached } = setup({ defaultTtl: 60 })
  await get('a')
  await get('b')
  clock.advance(30 * SECOND)
  await get('c')
  clock.advance(30 * SECOND)
  // The request for c purges a and b (its event is kept alive until their responses are gone).
  expect(await get('c')).toEqual({ body: '/api/c #3', from: 'cache' })
  expect(cached()).toEqual([API + 'c'])
})

test('a response cached while the purge deletes the expired entry of its URL is kept: the deletion leaves a URL being written alone', async () => {
  const { plugin, clock, cacheName, get, cached } = setup({ defaultTtl: 60 })
  await get('a')
  clock.advance(60 * SECOND)
  // A strategy writing a new response for a: announced, put, not yet recorded.
  const request = new Request(API + 'a')
  const state = {}
  await plugin.cacheKeyWillBeUsed({ request, mode: 'write', state })
  await storage().cache(cacheName).put(request, new Response('new a'))
  // Meanwhile another request's event purges the old entry of a.
  await get('b')
  expect(cached()).toContain(API + 'a')
  const event = new FakeEvent()
  await plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('new a'), event })
  await plugin.handlerDidComplete({ event, state })
  await event.done()
  expect(await get('a')).toEqual({ body: 'new a', from: 'cache' })
})

test('a write of a URL whose old response is being deleted waits for the deletion, then puts its own', async () => {
  const { plugin, clock, cacheName, get } = setup({ defaultTtl: 60 })
  const cache = storage().cache(cacheName)
  await get('a')
  clock.advance(60 * SECOND)
  let release = () => {}
  cache.hold = new Promise((resolve) => (release = resolve))
  // Another request's event purges the old entry of a: the deletion of its response is held.
  const purging = get('b')
  await vi.waitFor(() => expect(cache.held).toBe(1), SOON)
  const request = new Request(API + 'a')
  const state = {}
  // What the cache held when the write began: the deletion had run to its end. It is let go in a
  // later task, after every step of a write that would not wait for it (each a microtask).
  const announced = plugin.cacheKeyWillBeUsed({ request, mode: 'write', state }).then(() => ({ held: cache.held, old: cache.responses.has(API + 'a') }))
  setTimeout(() => {
    cache.hold = undefined
    release()
  })
  expect(await announced).toEqual({ held: 0, old: false })
  await cache.put(request, new Response('new a'))
  const event = new FakeEvent()
  await plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('new a'), event })
  await plugin.handlerDidComplete({ event, state })
  await purging
  expect(await get('a')).toEqual({ body: 'new a', from: 'cache' })
})

test("matchOptions are the plugin's cache.delete options, as in Workbox", async () => {
  const { clock, get, cacheName } = setup({ defaultTtl: 60, matchOptions: { ignoreVary: true } })
  await get('a')
  clock.advance(60 * SECOND)
  await get('b')
  expect(storage().cache(cacheName).deletedWith).toEqual([{ ignoreVary: true }])
})

test('maxEntries: the least recently cached responses leave the cache, and are not served', async () => {
  const { clock, get, cached } = setup({ maxEntries: 3 })
  for (const path of ['a', 'b', 'c', 'd']) {
    await get(path)
    clock.advance(SECOND)
  }
  expect(cached().sort()).toEqual([API + 'b', API + 'c', API + 'd'])
  expect((await get('a')).from).toBe('network')
})

test("maxEntries gives up the least recently used response, as Workbox's does: a used again outlives b, cached after it", async () => {
  const { clock, get, cached } = setup({ maxEntries: 2 })
  await get('a')
  clock.advance(SECOND)
  await get('b')
  clock.advance(SECOND)
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'cache' })
  clock.advance(SECOND)
  await get('c')
  expect(cached().sort()).toEqual([API + 'a', API + 'c'])
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'cache' })
  expect(await get('b')).toEqual({ body: '/api/b #4', from: 'network' })
})

test('a use orders the response for maxEntries without lengthening its life: maxAgeSeconds still counts from when it was cached', async () => {
  const { clock, get } = setup({ maxAgeSeconds: 60, maxEntries: 2 })
  await get('a')
  clock.advance(50 * SECOND)
  expect((await get('a')).from).toBe('cache')
  clock.advance(10 * SECOND)
  expect(await get('a')).toEqual({ body: '/api/a #2', from: 'network' })
})

test("maxEntries with sliding expiry: a use both keeps the response longest and restarts its countdown", async () => {
  const { clock, get, cached } = setup({ maxEntries: 2, maxAgeSeconds: 100, maxAgeFrom: 'last-used' })
  await get('a')
  clock.advance(SECOND)
  await get('b')
  clock.advance(80 * SECOND)
  expect((await get('a')).from).toBe('cache')
  clock.advance(SECOND)
  await get('c')
  expect(cached().sort()).toEqual([API + 'a', API + 'c'])
  clock.advance(80 * SECOND)
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'cache' })
})

test("a cache whose entries an earlier plugin capped (the store's own maxEntries, by _ts) is trimmed least recently used first", async () => {
  const { clock, get, cacheName, cached } = setup({ maxEntries: 2 })
  const before = await openTtlDB(`idb-ttl-workbox:${cacheName}`, { clock, stores: { entries: { keyPath: 'url', defaultTtl: -1, maxEntries: 2 } } })
  for (const path of ['a', 'b']) {
    await before.put('entries', { url: API + path, at: clock.now })
    await storage().cache(cacheName).put(API + path, new Response(`cached before: ${path}`))
    clock.advance(SECOND)
  }
  before.close()
  expect(await get('a')).toEqual({ body: 'cached before: a', from: 'cache' })
  clock.advance(SECOND)
  await get('c')
  expect(cached().sort()).toEqual([API + 'a', API + 'c'])
  expect(await get('a')).toEqual({ body: 'cached before: a', from: 'cache' })
})

test.each([{ evictOnQuota: true }, { purgeOnQuotaError: true }])('%o: a cache write refused at a full disk gives up the expired responses, then the oldest quarter, not the whole cache nor another', async (quota) => {
  const { clock, get, cacheName, cached } = setup({ defaultTtl: 3600, ...quota })
  const other = setup({ defaultTtl: 3600, ...quota })
  await other.get('kept')
  await get('dies')
  clock.advance(SECOND)
  // Eight responses within one second (one _ts), cached in the reverse of their keys' order.
  for (const path of ['p8', 'p7', 'p6', 'p5', 'p4', 'p3', 'p2', 'p1']) {
    await get(path)
    clock.advance(100)
  }
  clock.advance(3600 * SECOND - 1800)
  expect(cached()).toHaveLength(9)
  storage().cache(cacheName).full = true
  expect((await get('refused')).from).toBe('network')
  // At the full disk the expired response leaves, then p8 and p7 (the first quarter of the 8 live ones).
  expect(cached().sort()).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((path) => API + path))
  expect(other.cached()).toEqual([API + 'kept'])
  storage().cache(cacheName).full = false
  expect((await get('p8')).from).toBe('network')
  expect((await get('p1')).from).toBe('cache')
})

test('a cap added to a cache whose database was created without one applies at once', async () => {
  const { get, cacheName, cached } = setup({ defaultTtl: 60, maxEntries: 1 })
  // The cache and its entries as a version of the worker without the cap left them.
  const before = await openTtlDB(`idb-ttl-workbox:${cacheName}`, { clock: manualClock(T0), stores: { entries: { keyPath: 'url', defaultTtl: 60 } } })
  await before.put('entries', { url: API + 'a', at: T0 })
  before.close()
  await storage().cache(cacheName).put(API + 'a', new Response('cached before'))
  expect(await get('a')).toEqual({ body: 'cached before', from: 'cache' })
  await get('b')
  expect(cached()).toEqual([API + 'b'])
})

test('a response the plugin could not record is not served, even where the URL has a live entry from an earlier response', async () => {
  let second = false
  const { plugin, cacheName, get, cached } = setup({ defaultTtl: 60, ttl: () => (second ? 1.5 : undefined) })
  await get('a')
  // A strategy caches a new response for a (NetworkFirst, say); its ttl is invalid: no entry.
  second = true
  const request = new Request(API + 'a')
  const state = {}
  const event = new FakeEvent()
  await plugin.cacheKeyWillBeUsed({ request, mode: 'write', state })
  await storage().cache(cacheName).put(request, new Response('new a'))
  await expectTtlError(plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('new a'), event }), 'INVALID_TTL')
  await plugin.handlerDidComplete({ event, state })
  await event.done()
  expect(cached()).toEqual([])
  second = false
  expect(await get('a')).toEqual({ body: '/api/a #2', from: 'network' })
})

test('a response just put in the cache is served to a read that comes before its entry is recorded: the read waits for the write', async () => {
  const { plugin, cacheName, get, fetch } = setup({ defaultTtl: 60 })
  // A strategy caching a: announced and put; its entry is not recorded yet.
  const request = new Request(API + 'a')
  const state = {}
  const event = new FakeEvent()
  await plugin.cacheKeyWillBeUsed({ request, mode: 'write', state })
  await storage().cache(cacheName).put(request, new Response('a just cached'))
  // Another fetch of a meanwhile (40 ms later in Firefox). Once it asks whether a write of a is
  // under way, the write ends: the answer must wait for that end (a read that went on at once
  // would find the response with no entry, and go to the network).
  let ended = false
  const original = WriteGuard.prototype.written
  const answered: Promise<boolean>[] = []
  const written = vi.spyOn(WriteGuard.prototype, 'written').mockImplementation(function (this: WriteGuard, ...args) {
    const answer = original.apply(this, args)
    answered.push(answer.then(() => ended))
    return answer
  })
  onTestFinished(() => written.mockRestore())
  const reading = get('a')
  await vi.waitFor(() => expect(answered).toHaveLength(1), SOON)
  await plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('a just cached'), event })
  ended = true
  await plugin.handlerDidComplete({ event, state })
  expect(await answered[0], 'the write had ended when the read was answered').toBe(true)
  expect(await reading).toEqual({ body: 'a just cached', from: 'cache' })
  expect(fetch.count()).toBe(0)
})

test('a read that matched the response a write is replacing serves the new one (the old one had expired), never the old', async () => {
  const { plugin, clock, cacheName, get } = setup({ defaultTtl: 60 })
  await get('a')
  clock.advance(60 * SECOND)
  const request = new Request(API + 'a')
  const old = await storage().cache(cacheName).match(request)
  const state = {}
  const event = new FakeEvent()
  await plugin.cacheKeyWillBeUsed({ request, mode: 'write', state })
  // Matched before the put, asked about while the write is under way.
  const served = plugin.cachedResponseWillBeUsed({ cacheName, request, cachedResponse: old, event: new FakeEvent() })
  await storage().cache(cacheName).put(request, new Response('new a'))
  await plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('new a'), event })
  await plugin.handlerDidComplete({ event, state })
  expect(await (await served)?.text()).toBe('new a')
})

test('a strategy run that reads a URL it is writing itself (StaleWhileRevalidate) does not wait for its own write', async () => {
  const { plugin, cacheName, get } = setup({ defaultTtl: 60 })
  await get('a')
  const request = new Request(API + 'a')
  const state = {}
  await plugin.cacheKeyWillBeUsed({ request, mode: 'write', state })
  const cachedResponse = await storage().cache(cacheName).match(request)
  expect(await (await plugin.cachedResponseWillBeUsed({ cacheName, request, cachedResponse, event: new FakeEvent(), state }))?.text()).toBe('/api/a #1')
  await plugin.handlerDidComplete({ event: new FakeEvent(), state })
})

test('where the entries cannot be read (IndexedDB failing), a cached response is not served: the network answers', async () => {
  const { cacheName, get } = setup({ defaultTtl: 60 })
  await storage().cache(cacheName).put(API + 'a', new Response('cached'))
  const open = vi.spyOn(indexedDB, 'open').mockImplementation(() => {
    throw new DOMException('IndexedDB is broken', 'UnknownError')
  })
  try {
    expect(await get('a')).toEqual({ body: '/api/a #1', from: 'network' })
  } finally {
    open.mockRestore()
  }
})

test('deleteCacheAndMetadata deletes the caches the plugin handled and their databases', async () => {
  const { plugin, get, cacheName } = setup({ defaultTtl: 60 })
  await get('a')
  await plugin.deleteCacheAndMetadata()
  expect(await storage().has(cacheName)).toBe(false)
  expect((await indexedDB.databases()).map((info) => info.name)).not.toContain(`idb-ttl-workbox:${cacheName}`)
})

test('a strategy event that can no longer be extended does not fail the callbacks', async () => {
  const { plugin, cacheName } = setup({ defaultTtl: 60 })
  const request = new Request(API + 'a')
  await storage().cache(cacheName).put(request, new Response('a'))
  const ended = Object.assign(new FakeEvent(), { waitUntil: () => { throw new DOMException('the event ended', 'InvalidStateError') } })
  await plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('a'), event: ended })
  expect(await plugin.cachedResponseWillBeUsed({ cacheName, request, cachedResponse: new Response('a'), event: ended })).not.toBeNull()
})

test('options: unknown names and malformed values are TtlError INVALID_OPTION naming them; a bad lifetime is INVALID_TTL', async () => {
  const refused = async (options: unknown, code: string, message: RegExp) => {
    const attempt = Promise.resolve().then(() => new TtlExpirationPlugin(options as TtlExpirationPluginOptions))
    await expectTtlError(attempt, code)
    await expect(attempt).rejects.toThrow(message)
  }
  await refused({ maxAge: 60 }, 'INVALID_OPTION', /unknown option "maxAge"/)
  await refused({ defaultTtl: 60, maxAgeSeconds: 60 }, 'INVALID_OPTION', /defaultTtl or maxAgeSeconds/)
  await refused({ maxAgeSeconds: null }, 'INVALID_OPTION', /maxAgeSeconds must be -1 or seconds/)
  await refused({ maxAgeSeconds: 0 }, 'INVALID_TTL', /maxAgeSeconds/)
  await refused({ maxEntries: 0 }, 'INVALID_OPTION', /maxEntries/)
  await refused({ maxAgeFrom: 'last-read' }, 'INVALID_OPTION', /maxAgeFrom/)
  await refused({ touchOnRead: false, maxAgeFrom: 'last-used' }, 'INVALID_OPTION', /contradicts/)
  await refused({ ttl: 60 }, 'INVALID_OPTION', /ttl must be/)
  await refused({ purgeOnQuotaError: 'yes' }, 'INVALID_OPTION', /purgeOnQuotaError/)
  await refused({ clock: 5 }, 'INVALID_OPTION', /clock/)
  for (const staleIfError of [0, -1, 1.5, '60', 2 ** 31]) await refused({ staleIfError }, 'INVALID_OPTION', /staleIfError must be seconds/)
  await refused(null, 'INVALID_OPTION', /options object/)
})
