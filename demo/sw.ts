/// <reference lib="webworker" />
/**
 * The demo's service worker (vite-plugin-pwa, `strategies: 'injectManifest'`): it precaches the
 * app shell, so the page loads offline, and answers GET `api/quotes` from an idb-ttl store. A
 * response stored there is fresh for the store's `defaultTtl` (20 s): while it is live it is
 * served from the store; once it has expired (reads no longer see it) the next request goes to
 * the network and stores the new response; offline with nothing live, it answers 503 with a JSON
 * body that says so. The purge runs inside the events the worker is given (`db.purgeDuring`).
 *
 * The "network" is the tiny API that vite.config.ts adds to the dev and preview servers (the demo
 * has no backend of its own). `{ advance: ms }` posted to the worker moves its clock on, so a test
 * sees a response expire without waiting.
 */
import { openTtlDB, type DBSchema, type TtlFields } from '../src/index.js'
import { cleanupOutdatedCaches, precacheAndRoute } from 'workbox-precaching'

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST: (string | { url: string; revision: string | null })[] }

/** The API route, relative to the worker's scope (the demo's base is `./`). */
const API_PATH = 'api/quotes'
/** Seconds a stored response stays fresh. */
const API_TTL = 20

/** What the worker stores per URL: the response as received, and when (`_ts`, stamped by the store). */
interface Stored {
  url: string
  status: number
  contentType: string
  body: string
}

interface SwDB extends DBSchema {
  responses: { key: string; value: Stored & TtlFields }
}

/** The worker's clock: real time, plus what `{ advance }` messages added (tests only). */
let offset = 0
const clock = () => Date.now() + offset

// Its own database: the page's stores are the page's. In a service worker the purge mode is
// 'inline' by default (no Worker can be started there); it runs inside the events below.
const opened = openTtlDB<SwDB>('idb-ttl-demo-sw', {
  version: 1,
  clock,
  stores: { responses: { keyPath: 'url', defaultTtl: API_TTL } },
})

/**
 * Purges inside `event`. `waitUntil` must be called while the event is dispatched: the outer call
 * is, and keeps the event open while the store opens; `db.purgeDuring` then extends it again.
 */
const purgeDuring = (event: ExtendableEvent) => event.waitUntil(opened.then((db) => db.purgeDuring(event)))

self.skipWaiting()
self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim())
  purgeDuring(event)
})

cleanupOutdatedCaches()
// The app shell. The demo's query parameters (?db=…, ?view=second) name the same page: a
// navigation to ./?db=x is answered with the precached index.html. (The dev server injects an
// empty manifest: there the page comes from the server as usual.)
precacheAndRoute(self.__WB_MANIFEST, { ignoreURLParametersMatching: [/.*/] })

const json = (status: number, body: unknown, headers: Record<string, string>) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })

/** The stored response, with where it came from and how long it stays fresh (by the worker's clock). */
async function fromStore(stored: Stored, source: 'store' | 'network', expiresAt: number | undefined): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': stored.contentType, 'x-served-by': source, 'x-now': String(clock()) }
  if (expiresAt !== undefined) headers['x-expires-at'] = String(expiresAt)
  return new Response(stored.body, { status: stored.status, headers })
}

async function answer(request: Request): Promise<Response> {
  const db = await opened
  const url = new URL(request.url)
  url.search = ''
  const key = url.href
  const live = await db.get('responses', key)
  if (live) return fromStore(live, 'store', await db.expiresAt('responses', key))
  let response: Response
  try {
    response = await fetch(request)
  } catch {
    return json(503, { offline: true, message: 'Offline, and no live copy of this response is stored.' }, { 'x-served-by': 'offline', 'x-now': String(clock()) })
  }
  if (!response.ok) return response
  const stored: Stored = { url: key, status: response.status, contentType: response.headers.get('content-type') ?? 'application/json', body: await response.text() }
  await db.put('responses', stored)
  return fromStore(stored, 'network', await db.expiresAt('responses', key))
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url)
  if (event.request.method !== 'GET' || url.pathname !== new URL(API_PATH, self.registration.scope).pathname) return
  event.respondWith(answer(event.request))
  // A fetch is the event a page sends most often.
  purgeDuring(event)
})

/**
 * `{ advance: ms }` moves the clock on and purges; `{ raw: true }` asks what is on disk. Either
 * way the worker answers on the message's port with the keys on disk once the purge is done.
 */
self.addEventListener('message', (event) => {
  const data = (event.data ?? {}) as { advance?: number; raw?: boolean }
  if (typeof data.advance === 'number' && Number.isFinite(data.advance)) offset += data.advance
  event.waitUntil(
    opened.then(async (db) => {
      await db.purgeDuring(event)
      const reply = { now: clock(), onDisk: await db.raw.getAllKeys('responses'), live: await db.getAllKeys('responses') }
      event.ports[0]?.postMessage(reply)
    }),
  )
})

// Background Sync and Periodic Background Sync, where the browser has them (Chromium): their events also purge.
for (const type of ['sync', 'periodicsync']) {
  self.addEventListener(type, (event) => purgeDuring(event as ExtendableEvent))
}
