// The page side of the purge worker, against stub workers that fail to start, crash, never answer, or answer only pings.
import { afterEach, expect, test, vi } from 'vitest'
import { openTtlDB, type PurgeReport } from '../../src/index.js'
import { WorkerPurger } from '../../src/background/worker/client.js'
import { expireOneInTheBackground, freshDB, manualClock, uniqueName } from '../helpers.js'
import { stubWorkers } from './stubs.js'
import { timersOnClock } from './timers.js'
import { crashThroughFirstBackOff } from './back-off.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

let workers: ReturnType<typeof stubWorkers> | undefined
afterEach(() => workers?.restore())

test('a worker whose script does not load (a 404, a CSP) hands the purge to the page: an expired item is deleted, and the console says so once, naming the URL and what to do', async () => {
  workers = stubWorkers('fail')
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    const { db, clock, reports } = await expireOneInTheBackground()
    expect(reports.filter((r) => r.error)).toEqual([])
    // Later purges, background and purgeExpired(), run inline too: no second worker, no second warning.
    await db.put('s', { id: 'gone too', ttl: 1 })
    clock.advance(5_000)
    const deleted = () => reports.reduce((n, r) => n + r.deleted, 0)
    await vi.waitFor(
      async () => {
        expect(await db.raw.getAllKeys('s')).toEqual(['kept'])
        expect(deleted()).toBe(2)
      },
      { timeout: 5000, interval: 10 },
    )
    await db.put('s', { id: 'gone as well', ttl: 1 })
    clock.advance(5_000)
    // The background, on the page, wakes every 20 ms (maxIntervalMs) and may delete it first:
    // purgeExpired deletes it or finds it gone, and onPurge hears of the one deletion either way.
    expect([0, 1]).toContain(await db.purgeExpired('s'))
    expect(await db.raw.getAllKeys('s')).toEqual(['kept'])
    await vi.waitFor(() => expect(deleted()).toBe(3), { timeout: 5000, interval: 10 })
    expect(workers.started).toHaveLength(1)
    expect(workers.started[0].terminated).toBe(true)
    expect(warn).toHaveBeenCalledTimes(1)
    const [message] = warn.mock.calls[0] as [string]
    expect(message).toMatch(/^idb-ttl: the purge worker could not be started from \S+\/purge-worker\.ts\S*: its script did not load/)
    expect(message).toContain(db.raw.name)
    expect(message).toContain('dist/purge-worker.js')
    expect(message).toContain("mode: 'inline'")
  } finally {
    warn.mockRestore()
  }
})

test('where there is no Worker at all the purge runs on the page, and the console says so once', async () => {
  const g = globalThis as { Worker?: unknown }
  // Node has none; a browser's is taken away for the test (an interface object is configurable).
  const saved = g.Worker
  delete g.Worker
  expect(g.Worker).toBeUndefined()
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    const { reports } = await expireOneInTheBackground()
    expect(reports.filter((r) => r.error)).toEqual([])
    expect(warn).toHaveBeenCalledTimes(1)
    expect(warn.mock.calls[0][0]).toMatch(/could not be started from its URL: ReferenceError: (Worker is not defined|Can't find variable: Worker)/)
  } finally {
    warn.mockRestore()
    if (saved !== undefined) g.Worker = saved
  }
})

test('without an inline fallback, a worker whose script does not load fails the call with a PurgeWorkerError naming its URL', async () => {
  workers = stubWorkers('fail')
  const purger = new WorkerPurger({ name: uniqueName(), stores, batchSize: 10, sliceMs: 10 })
  const error = await purger.slice(Date.now()).catch((e: Error) => e)
  expect(error).toMatchObject({ name: 'PurgeWorkerError', message: expect.stringMatching(/^the purge worker could not be started from \S+\/purge-worker\.ts\S*: its script did not load/) })
  expect(workers.started[0].terminated).toBe(true)
  await purger.close()
})

test('a worker that crashes fails the call with a PurgeWorkerError that gives its URL and the error it reported', async () => {
  workers = stubWorkers('crash')
  const purger = new WorkerPurger({ name: uniqueName(), stores, batchSize: 10, sliceMs: 10 }, 30_000, () => {
    throw new Error('a worker that started is not replaced by the inline purger')
  })
  const error = await purger.slice(Date.now()).catch((e: Error) => e)
  expect(error).toMatchObject({
    name: 'PurgeWorkerError',
    message: expect.stringMatching(/^the purge worker from \S+\/purge-worker\.ts\S* failed: Uncaught Error: stub worker crashed \(purge-worker\.js:1\)$/),
  })
  await purger.close()
})

test('a worker that crashes is tried once per back-off step, not once per write; requests still succeed', async () => {
  workers = stubWorkers('crash')
  const clock = manualClock()
  // The scheduler's sleeps and the idle callbacks on the clock: the back-off is counted in clock
  // time, without sleeping through it.
  const waits = timersOnClock('src/background/scheduler', clock)
  try {
    const db = await freshDB({ clock, stores, purge: { mode: 'worker', idleTimeoutMs: 5 } })
    const failures = await crashThroughFirstBackOff(db, clock, waits, () => workers!.started.length)
    expect(workers.started[0].terminated).toBe(true)
    expect(failures).toHaveLength(1)
    expect(failures[0]).toMatchObject({ store: '*', error: { name: 'PurgeWorkerError' } })
  } finally {
    waits.restore()
  }
})

test('purgeExpired() right before close() rejects CLOSED and leaves no worker running', async () => {
  workers = stubWorkers('silent')
  const name = uniqueName('close-purge')
  const db = await openTtlDB(name, { version: 1, stores, purge: { mode: 'worker' } })
  const purging = db.purgeExpired().catch((error) => error)
  db.close()
  expect(await purging).toMatchObject({ name: 'TtlError', code: 'CLOSED' })
  // A worker that does not answer close() is terminated anyway, a moment later.
  await vi.waitFor(() => expect(workers!.started.filter((w) => !w.terminated)).toEqual([]), { timeout: 5000, interval: 10 })
  indexedDB.deleteDatabase(name)
})

test('a closed purger starts no worker: its calls reject CLOSED', async () => {
  workers = stubWorkers('silent')
  const purger = new WorkerPurger({ name: uniqueName(), stores, batchSize: 10, sliceMs: 10 })
  const slice = purger.slice(Date.now()).catch((error) => error)
  await purger.close()
  expect(await slice).toMatchObject({ name: 'TtlError', code: 'CLOSED' })
  // A worker starts inside the call itself, if at all: counted before the call settles.
  const late = purger.purgeAll(['s'], Date.now()).catch((error) => error)
  expect(workers.started).toHaveLength(1)
  expect(workers.started[0].terminated).toBe(true)
  expect(await late).toMatchObject({ name: 'TtlError', code: 'CLOSED' })
})

test('a worker that stops answering mid-slice is ended by the watchdog, and the slice fails', async () => {
  workers = stubWorkers('silent')
  const purger = new WorkerPurger({ name: uniqueName(), stores, batchSize: 10, sliceMs: 10 }, 50)
  await expect(purger.slice(Date.now())).rejects.toMatchObject({ name: 'PurgeWorkerError' })
  expect(workers.started).toHaveLength(1)
  expect(workers.started[0].terminated).toBe(true)
  // The next slice starts a fresh worker.
  const next = purger.slice(Date.now()).catch((error) => error)
  expect(workers.started).toHaveLength(2)
  await purger.close()
  expect(await next).toMatchObject({ name: 'TtlError', code: 'CLOSED' })
})

test('a worker that stops answering mid-purgeExpired is ended by the watchdog, and the purge fails', async () => {
  workers = stubWorkers('silent')
  const purger = new WorkerPurger({ name: uniqueName(), stores, batchSize: 10, sliceMs: 10 }, 50)
  await expect(purger.purgeAll(['s'], Date.now())).rejects.toMatchObject({ name: 'PurgeWorkerError' })
  expect(workers.started).toHaveLength(1)
  expect(workers.started[0].terminated).toBe(true)
  await purger.close()
})

test('a worker that answers pings but commits nothing for a whole watchdog period is ended, and the slice fails', async () => {
  workers = stubWorkers('stuck')
  const purger = new WorkerPurger({ name: uniqueName(), stores, batchSize: 10, sliceMs: 10 }, 50)
  const error = await purger.slice(Date.now()).catch((e: Error) => e)
  expect(error).toMatchObject({ name: 'PurgeWorkerError', message: expect.stringContaining('committed nothing') })
  expect(workers.started[0].terminated).toBe(true)
  await purger.close()
})

test('a worker that commits between pings is left alone however long it takes: purgeExpired, and a slice waiting behind it, complete', async () => {
  workers = stubWorkers('busy')
  const purger = new WorkerPurger({ name: uniqueName(), stores, batchSize: 10, sliceMs: 10 }, 50)
  const purging = purger.purgeAll(['s'], Date.now()).catch((e) => e)
  const slicing = purger.slice(Date.now()).catch((e) => e)
  const [worker] = workers.started
  // Both watchdogs ping once per period: each has judged the worker several times (or ended it).
  await vi.waitFor(() => expect(worker.pings >= 10 || worker.terminated).toBe(true), { timeout: 5000, interval: 10 })
  worker.answer('purgeAll', 7)
  worker.answer('slice', [])
  expect(await purging).toBe(7)
  expect(await slicing).toEqual([])
  expect(workers.started).toHaveLength(1)
  expect(worker.terminated).toBe(false)
  await purger.close()
})

test('a failing purgeExpired() rejects and is reported to onPurge, like a failing background slice', async () => {
  workers = stubWorkers('crash')
  const db = await freshDB({ stores, purge: { mode: 'worker' } })
  const reports: PurgeReport[] = []
  // Background slices fail too (as store '*'); this is about the one purgeExpired ran.
  db.onPurge((r) => r.store === 's' && reports.push(r))
  await expect(db.purgeExpired('s')).rejects.toMatchObject({ name: 'PurgeWorkerError' })
  expect(reports).toEqual([expect.objectContaining({ store: 's', deleted: 0, error: expect.objectContaining({ name: 'PurgeWorkerError' }) })])
})

test('a purgeExpired() the worker is running when close() comes rejects CLOSED', async () => {
  workers = stubWorkers('silent')
  const name = uniqueName('close-during')
  const db = await openTtlDB(name, { version: 1, stores, purge: { mode: 'worker' } })
  const purging = db.purgeExpired().catch((error) => error)
  await vi.waitFor(() => expect(workers!.started.length).toBeGreaterThan(0), { timeout: 5000, interval: 5 })
  db.close()
  expect(await purging).toMatchObject({ name: 'TtlError', code: 'CLOSED' })
  // A worker that does not answer close() is terminated anyway, a moment later.
  await vi.waitFor(() => expect(workers!.started.filter((w) => !w.terminated)).toEqual([]), { timeout: 5000, interval: 10 })
  indexedDB.deleteDatabase(name)
})
