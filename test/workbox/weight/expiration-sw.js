// A service worker that caches an API with Workbox's CacheFirst and workbox-expiration's
// ExpirationPlugin: what a worker with idb-ttl/workbox instead (ttl-sw.js) is weighed against,
// by size-limit (.size-limit.js) and by test/workbox/weight.node.test.ts (issue #44: at most 6 kB more).
import { ExpirationPlugin } from 'workbox-expiration'
import { registerRoute } from 'workbox-routing'
import { CacheFirst } from 'workbox-strategies'

registerRoute(({ url }) => url.pathname.startsWith('/api/'), new CacheFirst({ cacheName: 'api', plugins: [new ExpirationPlugin({ maxAgeSeconds: 300, maxEntries: 200 })] }))
