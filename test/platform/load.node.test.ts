/**
 * A page entry's `import()` that fails in a service worker (which forbids `import()`: an unbundled
 * module service worker that imports `idb-ttl`) rejects with a TtlError naming the import to use
 * there; elsewhere the failure is passed on as it came. A service worker is faked here: a global
 * `ServiceWorkerGlobalScope` of which this global is an instance. In a real one:
 * test/browser/service-worker.test.ts.
 */
import { afterEach, expect, test, vi } from 'vitest'
import { load } from '../../src/platform/load.js'
import { uniqueName } from '../helpers.js'

/** What Chromium's `import()` rejects with in a service worker. */
const forbidden = () => new TypeError('import() is disallowed on ServiceWorkerGlobalScope by the HTML specification. See https://github.com/w3c/ServiceWorker/issues/1356.')

function inAServiceWorker(): void {
  vi.stubGlobal('ServiceWorkerGlobalScope', { [Symbol.hasInstance]: (value: unknown) => value === globalThis })
}

afterEach(() => {
  vi.unstubAllGlobals()
  vi.doUnmock('../../src/layout/upgrade.js')
  vi.resetModules()
})

test("in a service worker, a loader's import() that fails rejects with TtlError UNSUPPORTED naming idb-ttl/service-worker", async () => {
  inAServiceWorker()
  const failure = await load(Promise.reject(forbidden())).catch((error: unknown) => error)
  expect(failure).toMatchObject({ name: 'TtlError', code: 'UNSUPPORTED' })
  expect((failure as Error).message).toContain('in a service worker import idb-ttl/service-worker')
  // The browser's own words stay in it.
  expect((failure as Error).message).toContain('import() is disallowed on ServiceWorkerGlobalScope')
})

test('elsewhere the failure of a loader passes on as it came', async () => {
  const failure = forbidden()
  await expect(load(Promise.reject(failure))).rejects.toBe(failure)
})

test("idb-ttl's openTtlDB in a service worker, its schema work failing to load, rejects with TtlError UNSUPPORTED", async () => {
  inAServiceWorker()
  vi.doMock('../../src/layout/upgrade.js', () => {
    throw forbidden()
  })
  vi.resetModules()
  const { openTtlDB } = await import('../../src/index.js')
  // A new database: the open must create it, with the schema work the entry loads with import().
  const opening = openTtlDB(uniqueName('sw-import'), { version: 1, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
  await expect(opening).rejects.toMatchObject({ name: 'TtlError', code: 'UNSUPPORTED', message: expect.stringContaining('in a service worker import idb-ttl/service-worker') })
})
