// idb-ttl/service-worker inside a module service worker (realms/store-sw.ts; the page entry, which
// loads parts of itself with import(), runs there only bundled: test/consumer; unbundled it is refused
// with a TtlError that names the import to use, realms/page-entry-sw.ts), registered with a scope of its own
// that controls no page, and driven from the page with postMessage and a MessageChannel: every
// method under the worker's own clock (default purge mode), db.purgeDuring(event) on a message
// event, purge: { mode: 'worker' } where there is no Worker, and onExpire across the page and it.
// All of it runs in the three engines under our drivers (Chromium 156 through Playwright, Firefox
// ESR 153 through puppeteer-core over WebDriver BiDi, WebKitGTK 2.50 MiniBrowser through
// WebKitWebDriver): none of them disables service workers under automation, and the test frame,
// on http://localhost, is a secure context. Where a module service worker cannot run, every test
// is skipped at run time, and the console says why (serviceWorkerUnavailable in realms/client.ts).
// Ending a service worker mid-purge needs CDP: service-worker-restart.test.ts, Chromium only.
import { expect, test, vi } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { OUTBOX_STORE } from '../../src/layout/sync-stores.js'
import { uniqueName } from '../helpers.js'
import { deleteAfterTest, registerServiceWorker, serviceWorkerUnavailable, type Realm } from './realms/client.js'
import { everyMethod, expiresAcrossRealms, heardKeys, openIn, openOnPage, purgesInTheBackground, until } from './realms/scenarios.js'

// Each test starts a worker, opens stores in it and waits on its background purge: on a loaded
// 2-core machine that took over the default 15 s (a Firefox shared worker's nested purge worker).
vi.setConfig({ testTimeout: 60_000 })

const unavailable = await serviceWorkerUnavailable()
if (unavailable) console.warn(`service worker tests skipped: ${unavailable}`)

const S = 1000

/** Writes `dead` items that die in an hour and `live` that never do, and moves the realm's clock two hours on. */
async function seed(db: Awaited<ReturnType<typeof openIn>>, dead: number, live: number) {
  const items = Array.from({ length: dead }, (_, i) => ({ id: `dead-${String(i).padStart(5, '0')}`, ttl: 3600 }))
  await db.call('putAll', 's', [...items, ...Array.from({ length: live }, (_, i) => ({ id: `live-${i}`, ttl: -1 }))])
  await db.advance(7200 * S)
  return items.map((item) => item.id)
}

const purgesDuring = (sw: Realm) => sw.ask<{ outcome: string; ms: number; left: number }[]>({ op: 'purgesDuring' })

test.skipIf(unavailable)('a service worker is a ServiceWorkerGlobalScope without Worker, in every engine', async () => {
  const sw = await registerServiceWorker()
  expect(await sw.ask({ op: 'hello' })).toEqual({ global: 'ServiceWorkerGlobalScope', hasWorker: false })
})

test.skipIf(unavailable)('every method works in a service worker with the default purge mode, under a clock that lives in it', async () => {
  const sw = await registerServiceWorker()
  await everyMethod(sw, {})
  // Without Worker, the default purges inline: no worker tried, no warning.
  expect(await sw.ask({ op: 'spies' })).toEqual({ nestedWorkers: 0, warnings: [] })
})

test.skipIf(unavailable)("db.purgeDuring(event) in a message event purges every expired item under the event's waitUntil, then resolves", async () => {
  const sw = await registerServiceWorker()
  // Timers of ten minutes: only purgeDuring purges in this test.
  const db = await openIn(sw, { batchSize: 10, maxIntervalMs: 600_000 })
  const here = await openOnPage(db.name)
  const dead = await seed(db, 500, 5)
  await until(async () => expect(await sw.ask({ op: 'isPurger', name: db.name })).toBe(true))
  expect(await sw.ask({ op: 'purgeDuring', name: db.name, store: 's' })).toEqual({ waitUntilCalls: 1, returnedPromiseAwaited: true })
  // It resolves once nothing is due, long before its 10 s budget, leaving only the live ones.
  await until(async () => expect(await purgesDuring(sw)).toMatchObject([{ outcome: 'resolved', left: 5 }]))
  expect((await purgesDuring(sw))[0].ms).toBeLessThan(10_000)
  expect(await here.db.raw.getAllKeys('s')).toEqual(['live-0', 'live-1', 'live-2', 'live-3', 'live-4'])
  expect(await db.call('count', 's')).toBe(5)
  // The page's onExpire hears each item the service worker purged, once.
  await until(() => expect(heardKeys(here.heard).sort()).toEqual(dead))
})

// That nothing is purged then is test/purge/during.test.ts's: here the background purge may run too.
test.skipIf(unavailable)('purgeDuring with a budget for its event, or with an event whose dispatch is over, rejects with INVALID_OPTION', async () => {
  const sw = await registerServiceWorker()
  const db = await openIn(sw, { batchSize: 10, maxIntervalMs: 600_000 })
  await seed(db, 50, 1)
  await until(async () => expect(await sw.ask({ op: 'isPurger', name: db.name })).toBe(true))
  expect(await sw.ask({ op: 'purgeDuring', name: db.name, store: 's', budgetMs: 2000, handOver: 'budget' })).toEqual({ waitUntilCalls: 0, returnedPromiseAwaited: false })
  // waitUntil after the handler returned with no promise pending: InvalidStateError, in every engine.
  await sw.ask({ op: 'purgeDuring', name: db.name, store: 's', handOver: 'late' })
  const refused = { outcome: 'rejected', code: 'INVALID_OPTION' }
  await until(async () => expect(await purgesDuring(sw)).toMatchObject([refused, refused]))
  // Handed over in time, the same purge runs.
  await sw.ask({ op: 'purgeDuring', name: db.name, store: 's' })
  await until(async () => expect(await purgesDuring(sw)).toMatchObject([refused, refused, { outcome: 'resolved', left: 1 }]))
})

test.skipIf(unavailable)("purge: { mode: 'worker' } in a service worker opens, starts no worker, says nothing, and purges inline: in the background, purgeExpired, purgeDuring", async () => {
  const sw = await registerServiceWorker()
  await purgesInTheBackground(sw, { mode: 'worker' })
  expect(await sw.ask({ op: 'spies' })).toMatchObject({ nestedWorkers: 0, warnings: [] })
  const db = await openIn(sw, { mode: 'worker', maxIntervalMs: 600_000 })
  await seed(db, 20, 1)
  // Its background purge may have deleted some first (its first slice waits for requests to pause).
  expect(await db.call('purgeExpired', 's')).toBeLessThanOrEqual(20)
  expect(await db.disk()).toEqual({ count: 1, keys: ['live-0'] })
  // Each deletion reported once, by whichever purge made it (a slice reports after its commit).
  await until(async () => expect((await db.heard()).reports.reduce((n, r) => n + r.deleted, 0)).toBe(20))
  await seed(db, 30, 0)
  await sw.ask({ op: 'purgeDuring', name: db.name, store: 's' })
  await until(async () => expect(await purgesDuring(sw)).toMatchObject([{ outcome: 'resolved', left: 1 }]))
  expect(await sw.ask({ op: 'spies' })).toMatchObject({ nestedWorkers: 0, warnings: [] })
})

test.skipIf(unavailable)("onExpire on the page hears what a service worker's purge deleted, and the service worker's hears the page's", async () => {
  await expiresAcrossRealms(await registerServiceWorker(), {})
})

test.skipIf(unavailable)('a service worker that never imports idb-ttl/cosmos queues its writes of a store declared mirror: true (SPEC §12b), and refuses an id Cosmos DB cannot store', async () => {
  const sw = await registerServiceWorker()
  const name = deleteAfterTest(uniqueName('sw-mirror'))
  const stores = { items: { keyPath: 'id', mirror: true } }
  await sw.ask({ op: 'open', name, options: { version: 1, stores, purge: { mode: 'off' } } })
  const call = (method: string, ...args: unknown[]) => sw.ask({ op: 'call', name, method, args })
  await call('put', 'items', { id: 'a', text: 'written offline by the service worker' })
  await call('delete', 'items', 'a')
  await call('put', 'items', { id: 'b' })
  await expect(call('put', 'items', { id: 'c/d' })).rejects.toMatchObject({ code: 'INVALID_VALUE' })
  const page = await openTtlDB(name, { version: 1, stores, purge: { mode: 'off' } })
  try {
    const queued = (await page.raw.getAll(OUTBOX_STORE as never)) as { key: string; op: string }[]
    expect(queued.map(({ key, op }) => [key, op])).toEqual([['a', 'delete'], ['b', 'put']])
    expect(await page.getAllKeys('items')).toEqual(['b'])
  } finally {
    page.close()
  }
})

test.skipIf(unavailable)("a module service worker that imports idb-ttl (not idb-ttl/service-worker) unbundled is told, when the entry's import() fails, what to import there", async () => {
  const sw = await registerServiceWorker(new URL('./realms/page-entry-sw.ts', import.meta.url))
  const name = deleteAfterTest(uniqueName('sw-page-entry'))
  // A new database: the open must create it, with the schema work the entry loads with import().
  const opening = sw.ask({ op: 'open', name, options: { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 60 } } } })
  await expect(opening).rejects.toMatchObject({ name: 'TtlError', code: 'UNSUPPORTED', message: expect.stringContaining('in a service worker import idb-ttl/service-worker') })
})
