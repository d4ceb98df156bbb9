// idb-ttl/workbox in a Serwist 9 service worker, type-checked only (tsconfig.sw.json): the plugin
// is a SerwistPlugin to Serwist's own types, and it takes the options of Serwist's
// ExpirationPlugin by their names (maxAgeFrom: 'last-used' included), so switching is a changed import.
/// <reference lib="webworker" />
import { TtlExpirationPlugin } from 'idb-ttl/workbox'
import { CacheFirst, NetworkFirst, type SerwistPlugin } from 'serwist'

const api: SerwistPlugin = new TtlExpirationPlugin({ maxAgeSeconds: 300, maxEntries: 200, purgeOnQuotaError: true })
export const strategies = [
  new NetworkFirst({ cacheName: 'api', plugins: [api] }),
  new CacheFirst({ cacheName: 'images', plugins: [new TtlExpirationPlugin({ maxAgeSeconds: 86_400, maxAgeFrom: 'last-used' })] }),
]
