// idb-ttl inside a shared module worker (realms/store-worker.ts), driven from the page: every
// method under the worker's own clock, the background purge (inline, and the default mode, which
// is a nested worker where the engine gives shared workers `Worker`), and onExpire across the page
// and the worker.
import { expect, test } from 'vitest'
import { startSharedWorker } from './realms/client.js'
import { everyMethod, expiresAcrossRealms, purgesInTheBackground } from './realms/scenarios.js'

const hasSharedWorker = typeof SharedWorker === 'function'

test.skipIf(!hasSharedWorker)('a shared worker is a SharedWorkerGlobalScope', async () => {
  expect(await startSharedWorker().ask({ op: 'hello' })).toMatchObject({ global: 'SharedWorkerGlobalScope' })
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

test.skipIf(!hasSharedWorker)("onExpire on the page hears what a shared worker's purge deleted, and the worker's hears the page's", async () => {
  await expiresAcrossRealms(startSharedWorker(), { mode: 'inline' })
})
