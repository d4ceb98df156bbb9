/**
 * What Workbox's `CacheFirst` does with a plugin's callbacks, in the same order, for Node tests of
 * the plugin: match in the cache, `cachedResponseWillBeUsed`, else the network, then under the
 * event's `waitUntil` `cacheKeyWillBeUsed` (mode `'write'`), `cache.put` and `cacheDidUpdate`,
 * then `handlerDidComplete` with what failed; one `state` object for the plugin through the run.
 * A fetch that throws (a network that fails) is told to `fetchDidFail`, and the run, with no
 * response, asks `handlerDidError` for one, as Workbox's `Strategy.handle` does, or fails.
 * The browser tests (test/browser/workbox.test.ts) run Workbox's own strategies.
 */
import type { TtlExpirationPlugin } from '../../src/workbox/index.js'

/** An `ExtendableEvent` stand-in: `done()` resolves once every promise handed to `waitUntil` settled. */
export class FakeEvent {
  private readonly pending: Promise<unknown>[] = []

  waitUntil(promise: Promise<unknown>): void {
    this.pending.push(promise)
  }

  async done(): Promise<void> {
    while (this.pending.length > 0) await Promise.allSettled(this.pending.splice(0))
  }
}

/**
 * A network that answers each request with a new body (`<path> #<n>`) and the headers `headersFor`
 * gives, or, while `offline`, throws as `fetch` does when the network fails.
 */
export function network(headersFor: (url: string) => HeadersInit = () => ({})) {
  let fetched = 0
  const state = { offline: false }
  const fetch = async (request: Request) => {
    if (state.offline) throw new TypeError('Failed to fetch')
    return new Response(`${new URL(request.url).pathname} #${++fetched}`, { headers: headersFor(request.url) })
  }
  return Object.assign(fetch, { count: () => fetched, state })
}

/**
 * Answers `url` cache first through `plugin`; resolves, once the event's work is done, to the body
 * and where it came from (`'handlerDidError'`: the plugin's answer to a failed fetch, with the
 * `X-Idb-Ttl-Stale` header it carries); rejects as the strategy does when nothing answers.
 */
export async function cacheFirst(plugin: TtlExpirationPlugin, cacheName: string, fetch: (request: Request) => Promise<Response>, url: string) {
  const event = new FakeEvent()
  const state = {}
  const request = new Request(url)
  const cache = await caches.open(cacheName)
  const cachedResponse = await cache.match(request)
  const fresh = await plugin.cachedResponseWillBeUsed({ cacheName, request, cachedResponse, event, state })
  let response: Response
  let from: 'cache' | 'network' | 'handlerDidError'
  let error: Error | undefined
  if (fresh) {
    response = fresh
    from = 'cache'
  } else {
    try {
      response = await fetch(request)
    } catch (failure) {
      await plugin.fetchDidFail({ state })
      const fallback = await plugin.handlerDidError({ state })
      await plugin.handlerDidComplete({ error: failure as Error, event, state })
      await event.done()
      if (!fallback) throw failure
      return { body: await fallback.text(), from: 'handlerDidError' as const, stale: fallback.headers.get('x-idb-ttl-stale') }
    }
    from = 'network'
    const put = (async () => {
      await plugin.cacheKeyWillBeUsed({ request, mode: 'write', state })
      await cache.put(request, response.clone())
      await plugin.cacheDidUpdate({ cacheName, request, newResponse: response.clone(), event })
    })()
    event.waitUntil(put)
    await put.catch((e: Error) => void (error = e))
  }
  await plugin.handlerDidComplete({ error, event, state })
  await event.done()
  return { body: await response.text(), from }
}
