/** A page entry's `import()` of a part it loads on first use, told as what it is where it cannot work. */
import { TtlError } from '../rules/errors.js'

/** Not in the DOM lib the library is typed with. */
declare const ServiceWorkerGlobalScope: abstract new () => unknown

/**
 * `module`, an `import()` of the page entries (`idb-ttl`, `idb-ttl/core`). Service workers forbid
 * `import()`: one that imports a page entry unbundled (a module service worker as a dev server
 * serves it) gets a TtlError that says what to import there, not the browser's bare TypeError.
 * Asked only once the import failed: nothing is checked on the way to a loaded module.
 * @throws TtlError `UNSUPPORTED` in a service worker; elsewhere what `import()` rejected with
 */
export function load<T>(module: Promise<T>): Promise<T> {
  return module.catch((reason: unknown) => {
    throw typeof ServiceWorkerGlobalScope !== 'undefined' && globalThis instanceof ServiceWorkerGlobalScope
      ? new TtlError('UNSUPPORTED', `idb-ttl loads its parts on first use (${reason}): in a service worker import idb-ttl/service-worker`)
      : reason
  })
}

/**
 * `load`, called once: again only after it failed. An `import()` of a module loaded already still
 * waits for the module loader (0.4 ms in Chromium); the promise kept resolves at the next microtask.
 */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined
      throw error
    }))
}
