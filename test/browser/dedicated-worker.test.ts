// idb-ttl inside a dedicated module worker (realms/store-worker.ts), driven from the page: every
// method under the worker's own clock, the background purge inline and in a worker of its own
// (a nested worker), and onExpire across the page and the worker.
import { expect, test, vi } from 'vitest'
import { startDedicatedWorker } from './realms/client.js'
import { everyMethod, expiresAcrossRealms, purgesInTheBackground } from './realms/scenarios.js'

// Each test starts a worker, opens stores in it and waits on its background purge: on a loaded
// 2-core machine that took over the default 15 s (a Firefox shared worker's nested purge worker).
vi.setConfig({ testTimeout: 60_000 })

test('a dedicated worker is a DedicatedWorkerGlobalScope with Worker, so its default purge mode is worker', async () => {
  expect(await startDedicatedWorker().ask({ op: 'hello' })).toEqual({ global: 'DedicatedWorkerGlobalScope', hasWorker: true })
})

test('every method works in a dedicated worker, under a clock that lives in the worker', async () => {
  await everyMethod(startDedicatedWorker(), { mode: 'off' })
})

test('the inline background purge deletes expired items in a dedicated worker, and its onExpire hears them', async () => {
  const worker = startDedicatedWorker()
  await purgesInTheBackground(worker, { mode: 'inline' })
  expect(await worker.ask({ op: 'spies' })).toEqual({ nestedWorkers: 0, warnings: [] })
})

test("purge mode 'worker' in a dedicated worker starts a nested purge worker, which deletes expired items", async () => {
  const worker = startDedicatedWorker()
  await purgesInTheBackground(worker, { mode: 'worker' })
  expect(await worker.ask({ op: 'spies' })).toEqual({ nestedWorkers: 1, warnings: [] })
})

test('the default purge mode in a dedicated worker is a nested worker', async () => {
  const worker = startDedicatedWorker()
  await purgesInTheBackground(worker, {})
  expect(await worker.ask({ op: 'spies' })).toEqual({ nestedWorkers: 1, warnings: [] })
})

test("onExpire on the page hears what a dedicated worker's purge deleted, and the worker's hears the page's", async () => {
  await expiresAcrossRealms(startDedicatedWorker(), { mode: 'inline' })
})
