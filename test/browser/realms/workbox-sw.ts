/**
 * A module service worker that answers requests with Workbox's own strategies (CacheFirst,
 * NetworkFirst) and an expiration plugin: idb-ttl's TtlExpirationPlugin, or workbox-expiration's
 * ExpirationPlugin for the contrast. The page (test/browser/workbox.test.ts) drives it with
 * messages; each request runs inside the message's event, and is answered once every promise
 * handed to that event's `waitUntil` has settled: what the answer shows was done inside the event.
 *
 * The network is a stand-in (`fetch` is replaced): each answer is a new body, `<path> #<n>`, with a
 * `Date` header when the URL asks for one (`?date`), followed by a line of `?bytes=<n>` random
 * bytes (which no engine can compress away); while `offline`, the browser's own fetch of an
 * address where nothing listens, which fails as a fetch does without a network. The clock is
 * the worker's, moved by the page: `Date.now` for workbox-expiration, the plugin's `clock` option
 * for idb-ttl, the same function. A full disk is Cache Storage's `put` refusing with a
 * `QuotaExceededError`, as browsers do; a slow disk, its `delete` taking a while. A held put
 * stores its response and then waits for the page's `release`, before the strategy's
 * `cacheDidUpdate`: the moment when Firefox served another fetch of the URL.
 */
import { ExpirationPlugin } from 'workbox-expiration'
import { CacheFirst, NetworkFirst, type Strategy } from 'workbox-strategies'
import { TtlExpirationPlugin, type TtlExpirationPluginOptions } from '../../../src/workbox/index.js'
import { serviceWorker, type ExtendableEvent } from './sw-scope.js'

export type WorkboxRequest =
  /** Answers `url` with `strategy` and a plugin (`ttl`: idb-ttl's, `workbox`: workbox-expiration's), made at the first request for `cacheName`. */
  | { op: 'get'; cacheName: string; url: string; strategy: 'CacheFirst' | 'NetworkFirst'; plugin: 'ttl' | 'workbox'; options: TtlExpirationPluginOptions }
  /** The URLs in Cache Storage's cache `cacheName`. */
  | { op: 'cached'; cacheName: string }
  | { op: 'advance'; ms: number }
  /** The stand-ins: a network that fails, a disk that is full, cache deletions that take `deleteMs`, the next put held. */
  | { op: 'network'; offline?: boolean; full?: boolean; deleteMs?: number; holdPut?: boolean }
  /** Lets the held put return. */
  | { op: 'release' }
  /** Deletes every cache and database the plugins made. */
  | { op: 'closeAll' }

export interface Answer {
  body?: string
  /** What the strategy failed with (NetworkFirst offline with nothing it may serve). */
  error?: string
  /** The response's `X-Idb-Ttl-Stale` header: an expired response served for a failed fetch (`staleIfError`). */
  stale?: string
  /** What the strategy's work after the response failed with (a cache write refused at a full disk). */
  failed?: string
  /** How many times the network was asked so far. */
  fetched: number
}

const sw = serviceWorker<WorkboxRequest>()

let offset = 0
const realNow = Date.now.bind(Date)
const clock = () => realNow() + offset
Date.now = clock

const network = { fetched: 0, offline: false, full: false, deleteMs: 0, holdPut: false }
let release = () => {}
const realFetch = self.fetch.bind(self)
self.fetch = async (input: RequestInfo | URL) => {
  if (network.offline) return realFetch('http://127.0.0.1:1/', { cache: 'no-store' })
  const url = new URL(input instanceof Request ? input.url : String(input))
  const headers: Record<string, string> = url.searchParams.has('date') ? { date: new Date(clock()).toUTCString() } : {}
  return new Response(new Blob([`${url.pathname} #${++network.fetched}\n`, randomBytes(Number(url.searchParams.get('bytes') ?? 0))]), { headers })
}

function randomBytes(length: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(length)
  for (let i = 0; i < length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, Math.min(length, i + 65_536)))
  return bytes
}
const put = Cache.prototype.put
Cache.prototype.put = async function (this: Cache, ...args: Parameters<Cache['put']>) {
  if (network.full) throw new DOMException('the disk is full', 'QuotaExceededError')
  await put.apply(this, args)
  if (!network.holdPut) return
  network.holdPut = false
  await new Promise<void>((resolve) => (release = resolve))
}
const remove = Cache.prototype.delete
Cache.prototype.delete = async function (this: Cache, ...args: Parameters<Cache['delete']>) {
  await new Promise((resolve) => setTimeout(resolve, network.deleteMs))
  return remove.apply(this, args)
}

const strategies = new Map<string, { strategy: Strategy; plugin: TtlExpirationPlugin | ExpirationPlugin }>()

function strategyFor({ cacheName, strategy, plugin, options }: Extract<WorkboxRequest, { op: 'get' }>): Strategy {
  let made = strategies.get(cacheName)
  if (!made) {
    const expiration = plugin === 'ttl' ? new TtlExpirationPlugin({ ...options, clock }) : new ExpirationPlugin(options as ConstructorParameters<typeof ExpirationPlugin>[0])
    const Kind = strategy === 'CacheFirst' ? CacheFirst : NetworkFirst
    made = { strategy: new Kind({ cacheName, plugins: [expiration] }), plugin: expiration }
    strategies.set(cacheName, made)
  }
  return made.strategy
}

async function answer(request: WorkboxRequest, event: ExtendableEvent): Promise<unknown> {
  switch (request.op) {
    case 'get': {
      const [response, done] = strategyFor(request).handleAll({ request: new Request(new URL(request.url, self.location.href)), event })
      const answer: Answer = { fetched: 0 }
      await response.then(
        async (served) => {
          answer.body = (await served.text()).split('\n')[0]
          const stale = served.headers.get('x-idb-ttl-stale')
          if (stale !== null) answer.stale = stale
        },
        (error: Error) => void (answer.error = error.name),
      )
      await done.catch((error: Error) => void (answer.failed = error.name))
      return { ...answer, fetched: network.fetched }
    }
    case 'cached':
      return (await (await caches.open(request.cacheName)).keys()).map((key) => new URL(key.url).pathname + new URL(key.url).search)
    case 'advance':
      offset += request.ms
      return clock()
    case 'network':
      Object.assign(network, request)
      return network
    case 'release':
      release()
      return null
    case 'closeAll':
      for (const { plugin } of strategies.values()) await plugin.deleteCacheAndMetadata()
      strategies.clear()
      return null
  }
}

sw.addEventListener('install', (event) => event.waitUntil(sw.skipWaiting()))

sw.addEventListener('message', (event) => {
  const port = event.ports[0]
  // Every promise handed to this event, so that the answer waits for all of them.
  const handed: Promise<unknown>[] = []
  const waitUntil = event.waitUntil.bind(event)
  event.waitUntil = (promise) => {
    handed.push(promise)
    waitUntil(promise)
  }
  const answered = answer(event.data, event).then(
    async (value) => {
      while (handed.length > 0) await Promise.allSettled(handed.splice(0))
      port.postMessage({ ok: true, value, realm: 'workbox-sw' })
    },
    (error: Error) => port.postMessage({ ok: false, error: { name: error.name, message: error.message }, realm: 'workbox-sw' }),
  )
  waitUntil(answered)
})
