// The service worker of expiration-sw.js with idb-ttl/workbox's TtlExpirationPlugin instead of
// ExpirationPlugin, the options the same (issue #44: at most 6 kB more, min+gzip).
import { TtlExpirationPlugin } from 'idb-ttl/workbox'
import { registerRoute } from 'workbox-routing'
import { CacheFirst } from 'workbox-strategies'

registerRoute(({ url }) => url.pathname.startsWith('/api/'), new CacheFirst({ cacheName: 'api', plugins: [new TtlExpirationPlugin({ maxAgeSeconds: 300, maxEntries: 200 })] }))
