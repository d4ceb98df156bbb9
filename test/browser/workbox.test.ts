// SPEC §13 in a real service worker (realms/workbox-sw.ts): Workbox's own strategies with
// idb-ttl's TtlExpirationPlugin never serve an expired response, with or without a `Date` header,
// where workbox-expiration's ExpirationPlugin, under the same clock, serves it once more when it
// has no `Date` header (its documented behaviour). Then sliding expiry, maxEntries, a full disk,
// and expired responses deleted from Cache Storage inside the worker's events; with staleIfError, an
// expired response served, marked, only when the worker's fetch fails. The network is the worker's
// stand-in (offline: the browser's fetch of an address where nothing listens); the clock is the
// worker's, moved by messages.
import { expect, test, vi } from 'vitest'
import type { TtlExpirationPluginOptions } from '../../src/workbox/index.js'
import { registerServiceWorker, serviceWorkerUnavailable } from './realms/client.js'
import type { Request as RealmRequest } from './realms/store-ops.js'
import { until } from './realms/scenarios.js'
import type { Answer, WorkboxRequest } from './realms/workbox-sw.js'

vi.setConfig({ testTimeout: 60_000 })

const unavailable = await serviceWorkerUnavailable()
if (unavailable) console.warn(`Workbox service worker tests skipped: ${unavailable}`)

const S = 1000

/** The worker, and requests answered through `cacheName` with `strategy` and `plugin`. */
async function start(plugin: 'ttl' | 'workbox', options: TtlExpirationPluginOptions, strategy: 'CacheFirst' | 'NetworkFirst' = 'CacheFirst') {
  const realm = await registerServiceWorker(new URL('./realms/workbox-sw.ts', import.meta.url))
  // The realm's messages are store-ops.ts's; this worker takes its own (realms/workbox-sw.ts).
  const ask = <T>(request: WorkboxRequest) => realm.ask<T>(request as unknown as RealmRequest)
  const cacheName = `api-${crypto.randomUUID()}`
  return {
    ask,
    cacheName,
    get: (path: string, cache = cacheName) => ask<Answer>({ op: 'get', cacheName: cache, url: `/api/${path}`, strategy, plugin, options }),
    cached: (cache = cacheName) => ask<string[]>({ op: 'cached', cacheName: cache }),
    advance: (ms: number) => ask({ op: 'advance', ms }),
  }
}

for (const dated of [false, true]) {
  const path = dated ? 'a?date' : 'a'
  const header = dated ? 'with' : 'without'

  test.skipIf(unavailable)(`CacheFirst with TtlExpirationPlugin never serves an expired response, ${header} a Date header`, async () => {
    const sw = await start('ttl', { maxAgeSeconds: 60 })
    expect(await sw.get(path)).toEqual({ body: '/api/a #1', fetched: 1 })
    // `_ts` is whole seconds (SPEC §2): the entry dies between 59 and 60 s after it was cached,
    // and real time passes between the calls too. At 58 s on the clock it is alive for sure.
    await sw.advance(58 * S)
    expect(await sw.get(path)).toEqual({ body: '/api/a #1', fetched: 1 })
    await sw.advance(3 * S)
    expect(await sw.get(path)).toEqual({ body: '/api/a #2', fetched: 2 })
    expect(await sw.get(path)).toEqual({ body: '/api/a #2', fetched: 2 })
  })
}

test.skipIf(unavailable)("the contrast: workbox-expiration's ExpirationPlugin, under the same clock, serves the expired response once more without a Date header", async () => {
  const sw = await start('workbox', { maxAgeSeconds: 60 })
  expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 1 })
  await sw.advance(61 * S)
  // Expired a second ago, and served: its clean-up runs after the response was used.
  expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 1 })
  await until(async () => expect(await sw.cached()).toEqual([]))
  expect(await sw.get('a')).toEqual({ body: '/api/a #2', fetched: 2 })
  // With a Date header it checks the header first, and goes to the network.
  expect(await sw.get('b?date')).toEqual({ body: '/api/b #3', fetched: 3 })
  await sw.advance(61 * S)
  expect(await sw.get('b?date')).toEqual({ body: '/api/b #4', fetched: 4 })
})

test.skipIf(unavailable)("the same sequence through TtlExpirationPlugin: the response expired a second ago is not served", async () => {
  const sw = await start('ttl', { maxAgeSeconds: 60 })
  expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 1 })
  await sw.advance(61 * S)
  expect(await sw.get('a')).toEqual({ body: '/api/a #2', fetched: 2 })
})

test.skipIf(unavailable)('NetworkFirst offline falls back to the cached response while it lives, and fails rather than serve it expired', async () => {
  const sw = await start('ttl', { maxAgeSeconds: 60 }, 'NetworkFirst')
  expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 1 })
  await sw.ask({ op: 'network', offline: true })
  await sw.advance(30 * S)
  expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 1 })
  await sw.advance(31 * S)
  expect(await sw.get('a')).toMatchObject({ error: expect.any(String), fetched: 1 })
  await sw.ask({ op: 'network', offline: false })
})

test.skipIf(unavailable)("an expired response leaves Cache Storage inside the event of the next request the strategy handles", async () => {
  const sw = await start('ttl', { maxAgeSeconds: 60 })
  await sw.get('a')
  await sw.get('b')
  await sw.advance(30 * S)
  await sw.get('c')
  await sw.advance(31 * S)
  expect(await sw.cached()).toEqual(['/api/a', '/api/b', '/api/c'])
  // The answer comes once every promise handed to the request's event settled, deletions that
  // take a while included.
  await sw.ask({ op: 'network', deleteMs: 300 })
  expect(await sw.get('c')).toEqual({ body: '/api/c #3', fetched: 3 })
  expect(await sw.cached()).toEqual(['/api/c'])
})

test.skipIf(unavailable)("maxAgeFrom: 'last-used' slides: each use restarts the countdown", async () => {
  const sw = await start('ttl', { maxAgeSeconds: 60, maxAgeFrom: 'last-used' })
  await sw.get('a')
  for (let i = 0; i < 3; i++) {
    await sw.advance(50 * S)
    expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 1 })
  }
  await sw.advance(61 * S)
  expect(await sw.get('a')).toEqual({ body: '/api/a #2', fetched: 2 })
})

test.skipIf(unavailable)('maxEntries: the least recently cached response leaves Cache Storage with the request that went past the cap', async () => {
  const sw = await start('ttl', { maxEntries: 2 })
  for (const path of ['a', 'b', 'c']) {
    await sw.get(path)
    await sw.advance(S)
  }
  expect((await sw.cached()).sort()).toEqual(['/api/b', '/api/c'])
  expect(await sw.get('a')).toEqual({ body: '/api/a #4', fetched: 4 })
})

for (const plugin of ['ttl', 'workbox'] as const) {
  test.skipIf(unavailable)(`maxEntries with ${plugin === 'ttl' ? 'TtlExpirationPlugin' : "workbox-expiration's ExpirationPlugin"} gives up the least recently used: A and B cached, A used again, C cached: B leaves, A stays`, async () => {
    const sw = await start(plugin, { maxEntries: 2 })
    await sw.get('a')
    await sw.advance(S)
    await sw.get('b')
    await sw.advance(S)
    expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 2 })
    await sw.advance(S)
    await sw.get('c')
    await until(async () => expect((await sw.cached()).sort()).toEqual(['/api/a', '/api/c']))
    expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 3 })
    expect(await sw.get('b')).toEqual({ body: '/api/b #4', fetched: 4 })
  })
}

test.skipIf(unavailable)('a response is served from the moment it is in Cache Storage: a fetch between the put and the write of its entry waits for the entry', async () => {
  const sw = await start('ttl', { maxAgeSeconds: 60 })
  await sw.ask({ op: 'network', holdPut: true })
  const first = sw.get('a')
  // The response is in Cache Storage; the strategy's put has not returned, its entry is unwritten.
  await until(async () => expect(await sw.cached()).toEqual(['/api/a']))
  const second = sw.get('a')
  // Time for the second fetch to go to the network (as it did in Firefox) if it does not wait.
  await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 500))])
  await sw.ask({ op: 'release' })
  expect(await first).toEqual({ body: '/api/a #1', fetched: 1 })
  expect(await second).toEqual({ body: '/api/a #1', fetched: 1 })
})

test.skipIf(unavailable)('purgeOnQuotaError: at a full disk the cache gives up its oldest quarter, not everything, and another cache keeps all of its responses', async () => {
  const sw = await start('ttl', { maxAgeSeconds: 3600, purgeOnQuotaError: true })
  const other = `other-${crypto.randomUUID()}`
  await sw.get('kept', other)
  for (const path of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6', 'p7', 'p8']) {
    await sw.get(path)
    await sw.advance(S)
  }
  await sw.ask({ op: 'network', full: true })
  expect(await sw.get('refused')).toEqual({ body: '/api/refused #10', failed: 'QuotaExceededError', fetched: 10 })
  await sw.ask({ op: 'network', full: false })
  expect((await sw.cached()).sort()).toEqual(['p3', 'p4', 'p5', 'p6', 'p7', 'p8'].map((path) => `/api/${path}`))
  expect(await sw.cached(other)).toEqual(['/api/kept'])
  expect(await sw.get('p1')).toMatchObject({ body: '/api/p1 #11' })
})

/**
 * Whether `stale` (an `X-Idb-Ttl-Stale` header) is the expiry of a response cached between
 * `fromMs` and `toMs` (the worker's clock) with maxAgeSeconds 60: `_ts` is whole seconds (SPEC §2).
 */
const expiryOfCachedBetween = (stale: string | undefined, fromMs: number, toMs: number) => {
  const at = Date.parse(stale ?? '')
  return stale === new Date(at).toISOString() && at > fromMs - 1000 + 60 * S && at <= toMs + 60 * S
}

for (const strategy of ['NetworkFirst', 'CacheFirst'] as const) {
  test.skipIf(unavailable)(`staleIfError with ${strategy}, offline: the expired response is served, marked X-Idb-Ttl-Stale with its expiry, only while the fetch fails; online, the network's`, async () => {
    const sw = await start('ttl', { maxAgeSeconds: 60, staleIfError: 3600 }, strategy)
    try {
      const before = (await sw.advance(0)) as number
      expect(await sw.get('a')).toEqual({ body: '/api/a #1', fetched: 1 })
      const after = (await sw.advance(0)) as number
      await sw.advance(61 * S)
      await sw.ask({ op: 'network', offline: true })
      const stale = await sw.get('a')
      expect(stale).toEqual({ body: '/api/a #1', stale: expect.any(String), fetched: 1 })
      expect(expiryOfCachedBetween(stale.stale, before, after), stale.stale).toBe(true)
      await sw.ask({ op: 'network', offline: false })
      expect(await sw.get('a')).toEqual({ body: '/api/a #2', fetched: 2 })
    } finally {
      await sw.ask({ op: 'network', offline: false })
    }
  })
}

test.skipIf(unavailable)('staleIfError: once the grace has ended, the purge of the next request deletes the response, and offline the strategy fails', async () => {
  const sw = await start('ttl', { maxAgeSeconds: 60, staleIfError: 600 })
  try {
    await sw.get('a')
    await sw.advance(61 * S)
    // Kept through the purge of b's request, within its grace.
    await sw.get('b')
    expect((await sw.cached()).sort()).toEqual(['/api/a', '/api/b'])
    await sw.advance(600 * S)
    await sw.ask({ op: 'network', offline: true })
    // Workbox's CacheFirst fails with its own error once nothing answers.
    expect(await sw.get('a')).toEqual({ error: 'no-response', fetched: 2 })
    expect(await sw.cached()).toEqual(['/api/b'])
  } finally {
    await sw.ask({ op: 'network', offline: false })
  }
})
