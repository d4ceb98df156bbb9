/**
 * A module service worker that imports the page entry, `idb-ttl`, served unbundled by the dev
 * server as an app's dev server would: the entry's parts it loads with `import()`, which service
 * workers forbid, never load here. Answers each message as store-sw.ts does, with that entry's `openTtlDB`.
 */
import { openTtlDB } from '../../../src/index.js'
import { handle, type Request } from './store-ops.js'
import { serviceWorker } from './sw-scope.js'

// What Vitest prepends to a worker's script (its `vitest:browser:worker` plugin), and this
// script, registered as a service worker, does not get: the dev server hands every `import()` to it.
Object.assign(globalThis, { __vitest_browser_runner__: { wrapDynamicImport: (load: () => unknown) => load() } })

const sw = serviceWorker<Request>()

sw.addEventListener('install', (event) => event.waitUntil(sw.skipWaiting()))

sw.addEventListener('message', (event) => {
  const port = event.ports[0]
  event.waitUntil(handle(event.data, openTtlDB).then((reply) => port.postMessage(reply)))
})
