// The public types of `idb-ttl/workbox`, self-contained: dist/workbox.d.ts is bundled from them.
// The plugin's callbacks are typed structurally, with the fields they read of what Workbox 7 and
// Serwist 9 pass them, so that neither package is needed to compile or run the entry.

/** The part of a service worker's `ExtendableEvent` the plugin uses. */
export interface StrategyEvent {
  waitUntil(promise: Promise<unknown>): void
}

/** What a strategy keeps for each plugin during one run (`state` of the callbacks' parameters). */
export interface PluginState {
  [key: string]: unknown
}

/** What a strategy passes to `cacheKeyWillBeUsed` (the fields the plugin reads). */
export interface CacheKeyWillBeUsedParams {
  request: Request
  /** `'write'` right before the strategy puts a response in the cache. */
  mode: string
  state?: PluginState
}

/** What a strategy passes to `cachedResponseWillBeUsed` (the fields the plugin reads). */
export interface CachedResponseWillBeUsedParams {
  cacheName: string
  /** The request as the cache is keyed (after `cacheKeyWillBeUsed`). */
  request: Request
  cachedResponse?: Response
  /** The strategy's `CacheQueryOptions` for its matches. */
  matchOptions?: CacheQueryOptions
  event?: StrategyEvent
  state?: PluginState
}

/** What a strategy passes to `cacheDidUpdate` (the fields the plugin reads). */
export interface CacheDidUpdateParams {
  cacheName: string
  request: Request
  newResponse: Response
  event?: StrategyEvent
}

/** What a strategy passes to `handlerDidComplete` (the fields the plugin reads). */
export interface HandlerDidCompleteParams {
  /** What the strategy's work failed with, a cache write at a full disk among it. */
  error?: Error
  event?: StrategyEvent
  state?: PluginState
}

/** What a strategy passes to `fetchDidFail` when its fetch throws (the fields the plugin reads). */
export interface FetchDidFailParams {
  state?: PluginState
}

/** What a strategy passes to `handlerDidError` when it has no response (the fields the plugin reads). */
export interface HandlerDidErrorParams {
  state?: PluginState
}

/** What the `ttl` option's function is given: the request as cached, and the response. */
export interface ResponseContext {
  request: Request
  response: Response
}

/**
 * Options of {@link TtlExpirationPlugin}. Workbox's and Serwist's `ExpirationPlugin` options are
 * accepted where they mean the same thing (`maxAgeSeconds`, `maxEntries`, `purgeOnQuotaError`,
 * `maxAgeFrom`, `matchOptions`); any other name is TtlError `INVALID_OPTION`.
 */
export interface TtlExpirationPluginOptions {
  /**
   * Seconds a cached response is served after it was cached, `-1` for ever (the store's
   * `defaultTtl`, SPEC §1). Default: `-1`, so that only `ttl` or `maxEntries` end a response.
   */
  defaultTtl?: number
  /** Workbox's name for {@link defaultTtl}; give one or the other. */
  maxAgeSeconds?: number
  /**
   * Each response's own lifetime in seconds, from the request and response: `-1` for ever, `0`
   * for never served from the cache, `null`/`undefined` for {@link defaultTtl}. `'cache-control'`
   * reads the response's `Cache-Control`: `max-age` less its `Age`; `no-store` or `no-cache`: 0;
   * neither: the default.
   */
  ttl?: 'cache-control' | ((context: ResponseContext) => number | null | undefined)
  /** Sliding expiry: every time a cached response is served, its countdown restarts (SPEC §7). */
  touchOnRead?: boolean
  /** Serwist's name for {@link touchOnRead}: `'last-used'` is `touchOnRead: true`, `'last-fetched'` the default. */
  maxAgeFrom?: 'last-fetched' | 'last-used'
  /**
   * At most this many responses in the cache: the least recently used (served, or else cached)
   * leave first, as in Workbox. A use does not lengthen a response's life.
   */
  maxEntries?: number
  /**
   * When a write to the cache fails because the disk is full, the expired responses leave and then
   * a quarter of the live ones, least recently used first: never a whole cache.
   */
  evictOnQuota?: boolean
  /** Workbox's name for {@link evictOnQuota}, with our meaning: a share of the responses leaves, not the whole cache. */
  purgeOnQuotaError?: boolean
  /** The `CacheQueryOptions` of the plugin's `cache.delete` calls, as in Workbox. */
  matchOptions?: CacheQueryOptions
  /**
   * Seconds an expired response is kept after its expiry, served only when the strategy's network
   * fails (HTTP's `stale-if-error`): with header `X-Idb-Ttl-Stale` set to its expiry instant (ISO
   * 8601), so that the page can tell. Never served when the network answers, nor by a cache
   * read; the purge deletes it when the grace ends. Default: none, an expired response is gone.
   */
  staleIfError?: number
  /** The time in epoch ms, `Date.now` by default: for tests, which move it by hand. */
  clock?: () => number
}
