// idb-ttl inside a shared module worker (realms/store-worker.ts), driven from the page: every
// method under the worker's own clock, the background purge (inline, and the default mode, which
// is a nested worker where the engine gives shared workers `Worker`), and onExpire across the page
// and the worker. Shared workers run in all three engines under our drivers; where SharedWorker is
// missing, the tests are skipped.
import { expect, test, vi } from 'vitest'
import { server } from 'vitest/browser'
import { startSharedWorker } from './realms/client.js'
import { everyMethod, expiresAcrossRealms, purgesInTheBackground, purgesInWorkerMode } from './realms/scenarios.js'

// Each test starts a worker, opens stores in it and waits on its background purge: on a loaded
// 2-core machine that took over the default 15 s (a Firefox shared worker's nested purge worker).
vi.setConfig({ testTimeout: 60_000 })

const hasSharedWorker = typeof SharedWorker === 'function'

test.skipIf(!hasSharedWorker)('a shared worker is a SharedWorkerGlobalScope, with Worker in Firefox only', async () => {
  expect(await startSharedWorker().ask({ op: 'hello' })).toEqual({ global: 'SharedWorkerGlobalScope', hasWorker: server.browser === 'firefox' })
})

test.skipIf(!hasSharedWorker)('every method works in a shared worker, under a clock that lives in the worker', async () => {
  await everyMethod(startSharedWorker(), { mode: 'off' })
})

test.skipIf(!hasSharedWorker)('the inline background purge deletes expired items in a shared worker, and its onExpire hears them', async () => {
  const worker = startSharedWorker()
  await purgesInTheBackground(worker, { mode: 'inline' })
  expect(await worker.ask({ op: 'spies' })).toEqual({ nestedWorkers: 0, warnings: [] })
})

test.skipIf(!hasSharedWorker)('the default purge mode in a shared worker deletes expired items: in a nested worker where it has Worker, inline where not', async () => {
  const worker = startSharedWorker()
  const { hasWorker } = await worker.ask<{ hasWorker: boolean }>({ op: 'hello' })
  await purgesInTheBackground(worker, {})
  expect(await worker.ask({ op: 'spies' })).toEqual({ nestedWorkers: hasWorker ? 1 : 0, warnings: [] })
})

test.skipIf(!hasSharedWorker)("purge: { mode: 'worker' } in a shared worker: a nested worker where it has Worker, else inline with one warning, and expired items go", async () => {
  await purgesInWorkerMode(startSharedWorker())
})

test.skipIf(!hasSharedWorker)("onExpire on the page hears what a shared worker's purge deleted, and the worker's hears the page's", async () => {
  await expiresAcrossRealms(startSharedWorker(), { mode: 'inline' })
})
