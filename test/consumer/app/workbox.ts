// idb-ttl/workbox in a Workbox service worker, type-checked only (tsconfig.sw.json: lib WebWorker,
// no DOM): the plugin is a WorkboxPlugin to Workbox's own types, and its options take
// ExpirationPlugin's names, so switching is a changed import.
/// <reference lib="webworker" />
import { TtlExpirationPlugin } from 'idb-ttl/workbox'
import type { WorkboxPlugin } from 'workbox-core/types.js'
import { registerRoute } from 'workbox-routing'
import { CacheFirst, NetworkFirst } from 'workbox-strategies'

const api: WorkboxPlugin = new TtlExpirationPlugin({ maxAgeSeconds: 300, maxEntries: 200, purgeOnQuotaError: true })
registerRoute(({ url }) => url.pathname.startsWith('/api/'), new NetworkFirst({ cacheName: 'api', plugins: [api] }))
registerRoute(
  ({ request }) => request.destination === 'image',
  new CacheFirst({ cacheName: 'images', plugins: [new TtlExpirationPlugin({ defaultTtl: 86_400, ttl: 'cache-control', maxAgeFrom: 'last-used' })] }),
)
