// A service worker that imports the page entry, `idb-ttl`, rather than `idb-ttl/service-worker`:
// the consumer test builds it with vite-plugin-pwa (`es` and `iife`) and esbuild, and checks that
// each bundle inlines the `import()` with which the page entry loads its purge and its schema
// work (service workers forbid `import()`). Type-checked with lib WebWorker (tsconfig.sw.json).
/// <reference lib="webworker" />
import { openTtlDB } from 'idb-ttl'

declare const self: ServiceWorkerGlobalScope & { __WB_MANIFEST?: unknown[] }

/** vite-plugin-pwa's injectManifest needs the placeholder it fills; esbuild leaves it undefined. */
const precache = self.__WB_MANIFEST ?? null

self.addEventListener('message', (event) => {
  event.waitUntil(
    (async () => {
      const db = await openTtlDB('sw-page-entry', { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
      await db.put('s', { id: 'a' })
      event.ports[0]?.postMessage({ count: await db.count('s'), precache })
      db.close()
    })(),
  )
})
