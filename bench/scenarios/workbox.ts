/**
 * `idb-ttl/workbox` against `workbox-expiration`, with Workbox's own `CacheFirst` on the page (see
 * `../peers/workbox.ts` for what stands in for the service worker):
 * - `workbox-cachefirst-hit`: a cached hit, `strategy.handleAll()` until the response is read,
 *   the strategy is done and every promise handed to the event settled, with
 *   `TtlExpirationPlugin` against the same strategy with `ExpirationPlugin`;
 * - `workbox-purge-1k`: 1,000 cached responses expired, deleted from Cache Storage with their
 *   entries: through the plugin (one `cachedResponseWillBeUsed` call, as a strategy makes it,
 *   and its event's work: the purge, `onExpire`, the cache deletes) against workbox-expiration's
 *   `CacheExpiration.expireEntries()`, the call `ExpirationPlugin` makes on each cache use.
 */
import { CacheExpiration, ExpirationPlugin } from 'workbox-expiration'
import { CacheFirst } from 'workbox-strategies'
import { TtlExpirationPlugin } from '../../src/workbox/index.js'
import { freshName } from '../data.js'
import { atMost, compareAll, medianTime, ratioRow, REFERENCE, trial, type Fresh, type Row } from '../harness.js'
import { StandInEvent, workerStandIns, type WorkerStandIns } from '../peers/workbox.js'

const HIT_URLS = 100
const HITS = 300
const EXPIRED = 1_000
const MAX_AGE_S = 3600
const S = 1000

const urlOf = (i: number) => new URL(`/api/item/${i}`, location.href).href

interface Cached {
  strategy: CacheFirst
  cacheName: string
}

/** The body the stand-in network gave `url` on the `n`-th fetch of the scenario, ignoring `n`. */
const pathOf = (body: string) => body.split(' #')[0]

/** Answers `url` with `strategy`; resolves once the event's work is done, to the body. */
async function handle(strategy: CacheFirst, url: string): Promise<string> {
  const event = new StandInEvent()
  const [response, done] = strategy.handleAll({ request: new Request(url), event: event as unknown as ExtendableEvent })
  const body = await (await response).text()
  await done
  await event.done()
  return body
}

/** A fresh cache of `count` responses cached through `CacheFirst` with `plugin` (misses, in batches). */
async function cachedThrough(plugin: TtlExpirationPlugin | ExpirationPlugin, count: number): Promise<Fresh<Cached>> {
  const cacheName = freshName('workbox')
  const strategy = new CacheFirst({ cacheName, plugins: [plugin] })
  for (let i = 0; i < count; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => handle(strategy, urlOf(i + j))))
  }
  if ((await (await caches.open(cacheName)).keys()).length !== count) throw new Error(`${cacheName}: seeding cached the wrong number of responses`)
  return { db: { strategy, cacheName }, drop: () => plugin.deleteCacheAndMetadata() }
}

export async function cachedHit(): Promise<Row[]> {
  const standIns = workerStandIns()
  try {
    const hits = async ({ strategy }: Cached) => {
      const before = standIns.fetched()
      const ms = await medianTime(HITS, (i) => handle(strategy, urlOf(i % HIT_URLS)), (body) => pathOf(body) === '/api/item/0')
      if (standIns.fetched() !== before) throw new Error('a cached hit went to the network')
      return ms
    }
    const ours = trial(() => cachedThrough(new TtlExpirationPlugin({ maxAgeSeconds: MAX_AGE_S, clock: standIns.clock }), HIT_URLS), hits)
    const workbox = trial(() => cachedThrough(new ExpirationPlugin({ maxAgeSeconds: MAX_AGE_S }), HIT_URLS), hits)
    const [c] = await compareAll(ours, [workbox], { maxPairs: 20 })
    return [
      ratioRow(
        'workbox-cachefirst-hit',
        "the same CacheFirst hit with workbox-expiration's ExpirationPlugin",
        `ms p50 (handleAll, response read, strategy done, the event's waitUntil settled; ${HIT_URLS} cached URLs)`,
        c,
        atMost(1.1, 'ExpirationPlugin'),
      ),
    ]
  } finally {
    standIns.restore()
  }
}

/** Times `purge` of the cache `cached`, whose 1,000 responses expired; checks they left Cache Storage. */
async function timedPurge(standIns: WorkerStandIns, { cacheName }: Cached, purge: () => Promise<unknown>): Promise<number> {
  standIns.advance((MAX_AGE_S + 1) * S)
  const start = performance.now()
  await purge()
  const ms = performance.now() - start
  const left = (await (await caches.open(cacheName)).keys()).length
  if (left !== 0) throw new Error(`${cacheName}: ${left} expired responses left in Cache Storage after the purge`)
  return ms
}

export async function purgeExpired(): Promise<Row[]> {
  const standIns = workerStandIns()
  try {
    const ours = trial(
      async () => {
        const plugin = new TtlExpirationPlugin({ maxAgeSeconds: MAX_AGE_S, clock: standIns.clock })
        const fresh = await cachedThrough(plugin, EXPIRED)
        return { ...fresh, db: { ...fresh.db, plugin } }
      },
      async ({ plugin, ...cached }) =>
        timedPurge(standIns, cached, async () => {
          const event = new StandInEvent()
          const request = new Request(urlOf(0))
          const cachedResponse = await (await caches.open(cached.cacheName)).match(request)
          const served = await plugin.cachedResponseWillBeUsed({ cacheName: cached.cacheName, request, cachedResponse, event })
          if (served) throw new Error('an expired response was served')
          await event.done()
        }),
    )
    const workbox = trial(
      () => cachedThrough(new ExpirationPlugin({ maxAgeSeconds: MAX_AGE_S }), EXPIRED),
      (cached) => timedPurge(standIns, cached, () => new CacheExpiration(cached.cacheName, { maxAgeSeconds: MAX_AGE_S }).expireEntries()),
    )
    const [c] = await compareAll(ours, [workbox], { minPairs: 4, maxPairs: 8 })
    return [
      ratioRow(
        'workbox-purge-1k',
        "workbox-expiration's CacheExpiration.expireEntries() (ExpirationPlugin's expiry)",
        'ms per 1,000 expired responses (entries and Cache Storage deletes)',
        c,
        REFERENCE,
      ),
    ]
  } finally {
    standIns.restore()
  }
}
