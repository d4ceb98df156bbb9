/// <reference lib="webworker" />
/**
 * The demo's service worker (vite-plugin-pwa, `strategies: 'injectManifest'`): it precaches the
 * app shell, so the page loads offline, and answers GET `api/quotes` with Workbox's `NetworkFirst`
 * and idb-ttl's `TtlExpirationPlugin` (docs/workbox.md): each response from the network is put in
 * Cache Storage (cache `demo-api`) with an idb-ttl entry that lives 20 s. When the network fails,
 * the cached response is served while its entry lives, and never once it has expired; offline with
 * nothing live, the worker answers 503 with a JSON body that says so. The plugin purges inside the
 * strategy's events and deletes the expired response from Cache Storage there.
 *
 * The "network" is the tiny API that vite.config.ts adds to the dev and preview servers (the demo
 * has no backend of its own). `{ advance: ms }` posted to the worker moves its clock on (the
 * plugin's `clock` option), so a test sees a response expire without waiting.
 */
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching'
import { registerRoute } from 'workbox-routing'
import { NetworkFirst } from 'workbox-strategies'
import type { WorkboxPlugin } from 'workbox-core'
import { expiresAt } from '../src/service-worker.js'
import { TtlExpirationPlugin } from '../src/workbox/index.js'

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] }

/** The API route, relative to the worker's scope (the demo's base is `./`). */
const API_PATH = 'api/quotes'
/** The Cache Storage cache of the API's responses. */
const API_CACHE = 'demo-api'
/** Seconds a cached response may be served. */
const API_TTL = 20

/** The worker's clock: real time, plus what `{ advance }` messages added (tests only). */
let offset = 0
const clock = () => Date.now() + offset

self.skipWaiting()
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()))

cleanupOutdatedCaches()
// The app shell. The demo's query parameters (?db=…, ?view=second) name the same page: a
// navigation to ./?db=x is answered with the precached index.html. (The dev server injects an
// empty manifest: there the page comes from the server as usual.)
precacheAndRoute(self.__WB_MANIFEST, { ignoreURLParametersMatching: [/.*/] })

/** `response` with `headers` added (a fetched response's own headers cannot be changed). */
function withHeaders(response: Response, headers: Record<string, string>): Response {
  const all = new Headers(response.headers)
  for (const [name, value] of Object.entries(headers)) all.set(name, value)
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: all })
}

/**
 * For the panel: who answered (`x-served-by`), the worker's clock (`x-now`) and when the cached
 * copy stops being served (`x-expires-at`). The entry's `_ts` is the whole second of its write,
 * a few ms after the fetch: the expiry shown is the entry's, or a second earlier when the write
 * fell in the next second. Placed after the expiration plugin, it sees only what that plugin serves.
 */
const labels: WorkboxPlugin = {
  fetchDidSucceed: async ({ response }) => {
    const now = clock()
    const headers = { 'x-served-by': 'network', 'x-now': String(now) }
    return withHeaders(response, response.ok ? { ...headers, 'x-expires-at': String(expiresAt({ _ts: Math.floor(now / 1000) }, API_TTL)) } : headers)
  },
  cachedResponseWillBeUsed: async ({ cachedResponse }) => cachedResponse && withHeaders(cachedResponse, { 'x-served-by': 'cache', 'x-now': String(clock()) }),
}

const api = new NetworkFirst({ cacheName: API_CACHE, plugins: [new TtlExpirationPlugin({ defaultTtl: API_TTL, clock }), labels] })

const offline = () =>
  new Response(JSON.stringify({ offline: true, message: 'Offline, and no live copy of this response is cached.' }), {
    status: 503,
    headers: { 'content-type': 'application/json', 'x-served-by': 'offline', 'x-now': String(clock()) },
  })

registerRoute(
  ({ url, request }) => request.method === 'GET' && url.pathname === new URL(API_PATH, self.registration.scope).pathname,
  // NetworkFirst fails when neither the network nor a live cached copy answers.
  async ({ request, event }) => api.handle({ request, event }).catch(offline),
)

/**
 * `{ advance: ms }` moves the clock on. Either way the worker answers on the message's port with
 * its clock and the URLs in the API's cache.
 */
self.addEventListener('message', (event) => {
  const data = (event.data ?? {}) as { advance?: number }
  if (typeof data.advance === 'number' && Number.isFinite(data.advance)) offset += data.advance
  event.waitUntil(
    (async () => {
      const cached = (await (await caches.open(API_CACHE)).keys()).map((request) => request.url)
      event.ports[0]?.postMessage({ now: clock(), cached })
    })(),
  )
})
