/**
 * `TtlExpirationPlugin`: a Workbox 7 / Serwist 9 strategy plugin, an object of lifecycle
 * callbacks, that gives Cache Storage the SPEC's rules (§13): one idb-ttl entry per cached
 * request, and a cached response served only while its entry is live.
 */
import { CacheEntries } from './entries.js'
import { responseTtl } from './lifetime.js'
import { checkOptions, type Settings } from './options.js'
import { makeRoom } from './quota.js'
import { candidateAfterFailure, fetchFailed, keepCandidate, markStale } from './stale.js'
import type {
  CacheDidUpdateParams,
  CachedResponseWillBeUsedParams,
  CacheKeyWillBeUsedParams,
  FetchDidFailParams,
  HandlerDidCompleteParams,
  HandlerDidErrorParams,
  TtlExpirationPluginOptions,
} from './types.js'
import { WriteGuard, writesOf } from './writes.js'

/**
 * A strategy plugin that expires cached responses with idb-ttl (docs/workbox.md): a response whose
 * entry expired is never served, not even once; each response may have its own `ttl`; sliding
 * expiry, `maxEntries` and eviction at a full disk; a response leaves Cache Storage when the purge
 * deletes its entry, inside the strategy's events. With `staleIfError`, an expired response is
 * kept that long, and served, marked, only to a strategy whose network failed.
 *
 * A response cached without an entry (before the plugin was added, or whose entry could not be
 * written) is not served: the strategy goes to the network and caches the response anew.
 * @throws TtlError `INVALID_OPTION` for an unknown or malformed option; `INVALID_TTL` for a bad
 * `defaultTtl` or `maxAgeSeconds`
 */
export class TtlExpirationPlugin {
  private readonly settings: Settings
  /** Each cache's entries, opened on the first callback that names the cache. */
  private readonly caches = new Map<string, Promise<CacheEntries>>()
  private readonly guard = new WriteGuard()

  constructor(options: TtlExpirationPluginOptions = {}) {
    this.settings = checkOptions(options)
  }

  // The callbacks are properties, not methods: strategies call them without `this`.

  /** Announces a write before the strategy puts a response in the cache; the cache key is left as it is. */
  cacheKeyWillBeUsed = async ({ request, mode, state }: CacheKeyWillBeUsedParams): Promise<Request> => {
    if (mode === 'write' && state) {
      await this.guard.begin(request.url)
      writesOf(state).add(request.url)
    }
    return request
  }

  /**
   * Serves the cached response only while its entry is live; `null` sends the strategy to the
   * network, as does an entry that cannot be read (IndexedDB failing). A response being cached
   * by another strategy run (in Cache Storage, its entry not yet written) is served once its
   * entry is: the read waits for that write. An expired response within its `staleIfError`
   * grace is not served either; the run keeps it, in case its fetch fails.
   */
  cachedResponseWillBeUsed = async ({ cacheName, request, cachedResponse, matchOptions, event, state }: CachedResponseWillBeUsedParams): Promise<Response | null> => {
    if (!cachedResponse) return null
    let entries: CacheEntries
    let served: Awaited<ReturnType<CacheEntries['serve']>> | undefined
    try {
      // What was matched before that write ended may be the response it replaced: match again.
      if (await this.guard.written(request.url, state && writesOf(state))) cachedResponse = await caches.match(request, { ...matchOptions, cacheName })
      entries = await this.entries(cacheName)
      if (cachedResponse) served = await entries.serve(request.url)
    } catch {
      // Not served, rather than a strategy that fails where the network could answer.
      return null
    }
    entries.purgeDuring(event, served?.written)
    if (served?.live) return cachedResponse!
    if (cachedResponse && state && this.settings.graceMs) keepCandidate(state, { cacheName, url: request.url, response: cachedResponse })
    return null
  }

  /** Notes that the strategy's fetch failed: the network, not the server, did not answer. */
  fetchDidFail = async ({ state }: FetchDidFailParams): Promise<void> => {
    if (state) fetchFailed(state)
  }

  /**
   * With `staleIfError`, answers a strategy run that has no response because its fetch failed:
   * with the expired response its cache read met, while its entry is within the grace, and
   * header `X-Idb-Ttl-Stale` set to its expiry instant. Otherwise `undefined`: the strategy fails.
   */
  handlerDidError = async ({ state }: HandlerDidErrorParams): Promise<Response | undefined> => {
    const candidate = candidateAfterFailure(state)
    if (!candidate) return undefined
    try {
      const expiredAt = await (await this.entries(candidate.cacheName)).staleSince(candidate.url)
      return expiredAt === undefined ? undefined : markStale(candidate.response, expiredAt)
    } catch {
      return undefined
    }
  }

  /**
   * Records the response just cached, with its lifetime. A response it cannot record leaves the
   * cache: it must not be served under an entry the URL had from an earlier response.
   */
  cacheDidUpdate = async ({ cacheName, request, newResponse, event }: CacheDidUpdateParams): Promise<void> => {
    const entries = await this.entries(cacheName)
    try {
      await entries.record(request.url, responseTtl(this.settings.ttl, request, newResponse))
    } catch (error) {
      await entries.remove([request.url])
      throw error
    }
    await entries.trim()
    entries.purgeDuring(event)
  }

  /**
   * Ends the writes of the strategy run; after a cache write refused at a full disk, with
   * `evictOnQuota`, each cache of the plugin gives up a share.
   */
  handlerDidComplete = async ({ error, event, state }: HandlerDidCompleteParams): Promise<void> => {
    if (state) for (const url of writesOf(state)) this.guard.end(url)
    if (!this.settings.evictOnQuota || error?.name !== 'QuotaExceededError') return
    const room = Promise.all([...this.caches.values()].map(async (entries) => makeRoom(await entries)))
    try {
      event?.waitUntil(room)
    } catch {
      // The event can no longer be extended: room is made while the worker lives.
    }
    await room
  }

  /** Deletes every cache this plugin has handled, and the databases of their entries (Workbox's name). */
  async deleteCacheAndMetadata(): Promise<void> {
    const all = [...this.caches.values()]
    this.caches.clear()
    for (const entries of all) await (await entries).destroy()
  }

  private entries(cacheName: string): Promise<CacheEntries> {
    let opened = this.caches.get(cacheName)
    if (!opened) {
      opened = CacheEntries.open(cacheName, this.settings, this.guard)
      this.caches.set(cacheName, opened)
      // A failed open is tried again by the next callback.
      opened.catch(() => this.caches.get(cacheName) === opened && this.caches.delete(cacheName))
    }
    return opened
  }
}
