/**
 * `staleIfError` (issue #46): an expired response kept for its grace is served, marked with header
 * `X-Idb-Ttl-Stale`, only to a strategy run whose fetch failed (`fetchDidFail`, then
 * `handlerDidError`, as Workbox calls them: strategy.ts); never by a cache read, never when the
 * network answers; the purge deletes it when the grace ends.
 */
import { expect, test } from 'vitest'
import { SECOND, T0 } from '../semantics/support.js'
import { API, setup, storage } from './setup.js'
import { cacheFirst, FakeEvent } from './strategy.js'

/** When a response cached at T0 with maxAgeSeconds 60 expires, as the header says it. */
const EXPIRED_AT = new Date(T0 + 60 * SECOND).toISOString()

test('staleIfError: an expired response is served when the network fails, within its grace, marked with its expiry; once the network answers, the new one', async () => {
  const { clock, get, fetch } = setup({ maxAgeSeconds: 60, staleIfError: 3600 })
  await get('a')
  clock.advance(61 * SECOND)
  fetch.state.offline = true
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'handlerDidError', stale: EXPIRED_AT })
  clock.advance(3598 * SECOND)
  expect(await get('a')).toEqual({ body: '/api/a #1', from: 'handlerDidError', stale: EXPIRED_AT })
  fetch.state.offline = false
  expect(await get('a')).toEqual({ body: '/api/a #2', from: 'network' })
  expect(await get('a')).toEqual({ body: '/api/a #2', from: 'cache' })
})

test('staleIfError: a cache read never serves an expired response, and a network that answers, even with an error, is what the strategy gets', async () => {
  const { plugin, clock, cacheName, get } = setup({ maxAgeSeconds: 60, staleIfError: 3600 })
  await get('a')
  clock.advance(61 * SECOND)
  const request = new Request(API + 'a')
  const cachedResponse = await storage().cache(cacheName).match(request)
  const state = {}
  expect(await plugin.cachedResponseWillBeUsed({ cacheName, request, cachedResponse, event: new FakeEvent(), state })).toBeNull()
  // A run whose handler failed for another reason than its fetch (CacheOnly, say) gets nothing…
  expect(await plugin.handlerDidError({ state })).toBeUndefined()
  // …one whose fetch failed, the expired response.
  await plugin.fetchDidFail({ state })
  expect(await (await plugin.handlerDidError({ state }))?.text()).toBe('/api/a #1')
  const down = async () => new Response('the server is down', { status: 503 })
  expect(await cacheFirst(plugin, cacheName, down, API + 'a')).toEqual({ body: 'the server is down', from: 'network' })
})

test('staleIfError: the purge keeps an expired response for its grace, then deletes it; a failing network then fails the request', async () => {
  const { clock, get, fetch, cached } = setup({ maxAgeSeconds: 60, staleIfError: 3600 })
  await get('a')
  clock.advance(61 * SECOND)
  // b's events purge: a is kept.
  await get('b')
  expect(cached().sort()).toEqual([API + 'a', API + 'b'])
  clock.advance(3600 * SECOND)
  fetch.state.offline = true
  await expect(get('a')).rejects.toThrow('Failed to fetch')
  // That request's event purged a (its grace over) and kept b (within its own).
  expect(cached()).toEqual([API + 'b'])
  expect(await get('b')).toEqual({ body: '/api/b #2', from: 'handlerDidError', stale: new Date(T0 + 121 * SECOND).toISOString() })
})

test('without staleIfError an expired response is not served when the network fails: the strategy fails, and the response has left the cache', async () => {
  const { clock, get, fetch, cached } = setup({ maxAgeSeconds: 60 })
  await get('a')
  clock.advance(61 * SECOND)
  fetch.state.offline = true
  await expect(get('a')).rejects.toThrow('Failed to fetch')
  expect(cached()).toEqual([])
})

test('maxEntries gives up the responses kept for staleIfError before any live one, however recently used', async () => {
  const { clock, get, cached } = setup({ maxAgeSeconds: 60, staleIfError: 3600, maxEntries: 2, ttl: ({ request }) => (request.url.endsWith('/b') ? -1 : undefined) })
  await get('b')
  clock.advance(SECOND)
  await get('a')
  clock.advance(61 * SECOND)
  await get('c')
  expect(cached().sort()).toEqual([API + 'b', API + 'c'])
})

test('a full disk gives up the responses kept for staleIfError first, with the expired ones', async () => {
  const { clock, get, cacheName, cached } = setup({ maxAgeSeconds: 60, staleIfError: 3600, evictOnQuota: true, ttl: ({ request }) => (request.url.includes('/live') ? -1 : undefined) })
  for (const path of ['live1', 'live2', 'live3', 'stale']) {
    await get(path)
    clock.advance(SECOND)
  }
  clock.advance(60 * SECOND)
  storage().cache(cacheName).full = true
  await get('refused')
  // The stale response, and then a quarter of the three live ones (one): the least recently used.
  expect(cached().sort()).toEqual(['live2', 'live3'].map((path) => API + path))
})
