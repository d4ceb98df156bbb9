// A service worker using the installed package, built by the consumer test with vite-plugin-pwa
// (injectManifest, which replaces self.__WB_MANIFEST) and with esbuild (which leaves it
// undefined). sw.html registers it and posts it a message; the worker answers on the message's
// port with what it saw, and whether idb-ttl/workbox's plugin served a cached response before
// and after it expired. Type-checked with lib WebWorker, no DOM (tsconfig.sw.json).
/// <reference lib="webworker" />
import { openTtlDB, type DBSchema, type PurgeReport, type TtlFields } from 'idb-ttl/service-worker'
import { TtlExpirationPlugin } from 'idb-ttl/workbox'

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST?: ({ url: string; revision: string | null } | string)[] }

interface SwDB extends DBSchema {
  responses: { key: string; value: { url: string; body: string } & TtlFields }
}

// What the build injected: the precache manifest (vite-plugin-pwa), or nothing (esbuild).
const precache = self.__WB_MANIFEST ?? null

let now = Date.now()
const opened = openTtlDB<SwDB>(`consumer-sw-${now}`, {
  version: 1,
  clock: () => now,
  stores: { responses: { keyPath: 'url', defaultTtl: 3600 } },
})
const reports: PurgeReport[] = []
void opened.then((db) => db.onPurge((report) => reports.push(report)))

self.addEventListener('install', () => void self.skipWaiting())
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()))

/**
 * Writes `key` (ttl 60 s) and `kept` (the default, 1 h), then moves the clock 65 s on. The
 * background purge, woken by the write, would take `key` only 60 s later in real time: what
 * deletes it is the call that follows.
 */
async function expireOne(key: string): Promise<void> {
  const db = await opened
  await db.put('responses', { url: key, body: 'goes', ttl: 60 })
  await db.put('responses', { url: 'kept', body: 'stays' })
  now += 65_000
}

/** Caches a response as a strategy would, through the plugin: served now, and not 61 s later? */
async function servedBeforeAndAfter(event: ExtendableEvent): Promise<boolean[]> {
  const plugin = new TtlExpirationPlugin({ maxAgeSeconds: 60, clock: () => now })
  const cacheName = `consumer-api-${now}`
  const request = new Request(new URL('api/quotes', self.registration.scope))
  await (await caches.open(cacheName)).put(request, new Response('quotes'))
  await plugin.cacheDidUpdate({ cacheName, request, newResponse: new Response('quotes'), event })
  const served = []
  for (const step of [0, 61_000]) {
    now += step
    const cachedResponse = await (await caches.open(cacheName)).match(request)
    served.push((await plugin.cachedResponseWillBeUsed({ cacheName, request, cachedResponse, event })) !== null)
  }
  await plugin.deleteCacheAndMetadata()
  return served
}

self.addEventListener('message', (event) => {
  const reply = async () => {
    const db = await opened
    // The first slices of the purger just elected run now, on the clock as it is: a slice still
    // under way (or run again for the write) once the clock moved would take `gone-1` itself.
    await db.purgeDuring(event)
    await expireOne('gone-1')
    const hidden = await db.getAllKeys('responses')
    const purged = await db.purgeExpired()
    const afterPurgeExpired = await db.raw.getAllKeys('responses')
    await expireOne('gone-2')
    const onDiskBefore = await db.raw.getAllKeys('responses')
    await db.purgeDuring(event)
    const afterPurgeDuring = await db.raw.getAllKeys('responses')
    const plugin = await servedBeforeAndAfter(event)
    return { precache, isPurger: db.isPurger, hidden, purged, afterPurgeExpired, onDiskBefore, afterPurgeDuring, reports, plugin }
  }
  const answered = reply().then(
    (result) => event.ports[0].postMessage(result),
    (error: Error) => event.ports[0].postMessage({ error: `${error.name}: ${error.message}` }),
  )
  event.waitUntil(answered)
})
