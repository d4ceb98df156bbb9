// The purge worker in a real browser: physical deletion on its own, crashes, reads meanwhile, close.
import { openDB } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import type { PurgeReport } from '../../src/index.js'
import { WorkerPurger } from '../../src/background/worker/client.js'
import { countOnDisk, freshDB, manualClock, uniqueName } from '../helpers.js'
import { trackTimers } from '../purge/timers.js'

const until = (check: () => Promise<void> | void, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 10 })

/** Records every Worker the page starts, and whether it was terminated. */
function spyWorkers() {
  const Original = globalThis.Worker
  const started: { worker: Worker; terminated: boolean }[] = []
  globalThis.Worker = class extends Original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options)
      const entry = { worker: this as Worker, terminated: false }
      started.push(entry)
      const terminate = this.terminate.bind(this)
      this.terminate = () => {
        entry.terminated = true
        terminate()
      }
    }
  }
  return { started, restore: () => void (globalThis.Worker = Original) }
}

let workers: ReturnType<typeof spyWorkers>
const restore: (() => void)[] = []
afterEach(() => {
  workers?.restore()
  restore.splice(0).forEach((undo) => undo())
})

/**
 * Writes `dead` items that die with the store's default TTL (ids 0, 1, …) and `live` that never
 * do (`live-0`, …). One of each goes through the library; the others are copies of what it stored,
 * put in one raw transaction: the layout on disk is the library's own (a plain put writes the
 * data store alone), at a fraction of what thousands of puts through the library cost. The copies
 * share their model's write order (`$at`), which only a capped store's eviction reads.
 */
async function seed(db: Awaited<ReturnType<typeof freshDB>>, dead: number, live: number) {
  await db.putAll('s', [
    { id: 0, pad: 'x'.repeat(100) },
    { id: 'live-0', ttl: -1 },
  ])
  const [deadModel, liveModel] = [await db.raw.get('s', 0), await db.raw.get('s', 'live-0')]
  const tx = db.raw.transaction('s', 'readwrite')
  for (let i = 1; i < dead; i++) void tx.store.put({ ...deadModel, id: i })
  for (let i = 1; i < live; i++) void tx.store.put({ ...liveModel, id: `live-${i}` })
  await tx.done
}

const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

test('items with short TTLs disappear physically, from idle callbacks where the engine has them, with no purgeExpired call', async () => {
  workers = spyWorkers()
  // WebKit has none: its timer fallback is pinned in engines.test.ts.
  const idle = typeof requestIdleCallback === 'function' ? vi.spyOn(window, 'requestIdleCallback') : undefined
  const clock = manualClock()
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', maxIntervalMs: 20 } })
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  await seed(db, 900, 100)
  clock.advance(10_000)
  await until(async () => expect(await db.raw.count('s')).toBe(100))
  expect((await db.getAllKeys('s')).length).toBe(100)
  // A slice reports after its last batch has committed: the disk empties first.
  await until(() => expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(900))
  expect(workers.started).toHaveLength(1)
  if (idle) expect(idle).toHaveBeenCalled()
  idle?.mockRestore()
})

test('close() stops the scheduler and terminates the worker', async () => {
  workers = spyWorkers()
  const scheduler = trackTimers('src/background/scheduler', true)
  restore.push(() => scheduler.restore())
  const clock = manualClock()
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', maxIntervalMs: 20 } })
  await db.put('s', { id: 'a' })
  // Closed while the scheduler waits for its next slice (its one timer or idle callback pending),
  // not mid-slice: no slice is under way that could set a wait after close().
  await until(() => {
    expect(workers.started).toHaveLength(1)
    expect(scheduler.pending).toBe(1)
  })
  const name = db.raw.name
  db.close()
  expect(scheduler.pending).toBe(0)
  // The worker closes its connection first, then is terminated.
  await until(() => expect(workers.started[0].terminated).toBe(true))
  // Nothing is left to run a slice, nor to start a worker: the item, dead by the clock, stays.
  clock.advance(60_000)
  expect(workers.started).toHaveLength(1)
  expect(await countOnDisk(name, 's')).toBe(1)
})

test('reads issued during a large worker purge succeed and see only live items', async () => {
  const clock = manualClock()
  // Batches of 75: the 5,000 dead items take as many as 20,000 would in the default 300.
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', batchSize: 75, maxIntervalMs: 60_000 } })
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  await seed(db, 5000, 200)
  clock.advance(10_000)
  let purging = true
  const purge = db.purgeExpired('s').finally(() => (purging = false))
  // A read that finds the store partly purged ran between two of the purge's batches: had the
  // purge held the store throughout, every read would have waited for its end.
  let readsBetweenBatches = 0
  for (let i = 0; purging && i < 10_000; i++) {
    expect(await db.get('s', `live-${i % 200}`)).toMatchObject({ id: `live-${i % 200}`, ttl: -1 })
    expect(await db.get('s', i % 5000)).toBeUndefined()
    const onDisk = await db.raw.count('s')
    if (onDisk > 200 && onDisk < 5200) readsBetweenBatches++
  }
  // Background slices may take part of the work; together they delete every dead item once.
  expect(await purge).toBeGreaterThan(0)
  await until(() => expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(5000))
  expect(readsBetweenBatches).toBeGreaterThan(0)
  expect(await db.count('s')).toBe(200)
  expect(await db.raw.count('s')).toBe(200)
})

test('a worker that crashes mid-purge loses nothing live, and the next purge restarts it', async () => {
  workers = spyWorkers()
  const clock = manualClock()
  // Batches of 25: the crash comes after the first few of some 50 to 200.
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', batchSize: 25, maxIntervalMs: 60_000 } })
  await seed(db, 5000, 500)
  clock.advance(10_000)
  const first = db.purgeExpired('s').catch((e) => e)
  await until(async () => expect(await db.raw.count('s')).toBeLessThan(5500), 30_000)
  const victim = workers.started.at(-1)!
  victim.worker.dispatchEvent(new ErrorEvent('error', { message: 'simulated crash' }))
  expect(await first).toMatchObject({ name: 'PurgeWorkerError' })
  // A call made while the crashed worker was being stopped may already have started the next.
  expect(victim.terminated).toBe(true)
  const left = await db.raw.count('s')
  expect(left).toBeGreaterThan(500)
  expect(await db.count('s')).toBe(500)
  expect((await db.getAll('s')).every((item) => String(item.id).startsWith('live-'))).toBe(true)
  await db.purgeExpired('s')
  expect(await db.raw.count('s')).toBe(500)
  expect(workers.started.length).toBeGreaterThanOrEqual(2)
})

test('a worker that crashes at any moment of a batch leaves no transaction open behind it', async () => {
  // WebKitGTK 2.50 now and then (6 crashes in 40 in one run) kept the read-write transaction of
  // a worker terminated mid-batch open for good: every later request on the store waited forever.
  // The crash comes at a different moment of the purge in each round.
  workers = spyWorkers()
  const within = <T>(work: Promise<T>, what: string) =>
    Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} still waiting after 5 s`)), 5000))])
  for (let round = 0; round < 12; round++) {
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'worker', batchSize: 20, maxIntervalMs: 60_000 } })
    await seed(db, 600, 20)
    clock.advance(10_000)
    const first = db.purgeExpired('s').catch((e) => e)
    await until(async () => expect(await db.raw.count('s')).toBeLessThan(620))
    await new Promise((resolve) => setTimeout(resolve, (round % 6) * 5))
    workers.started.at(-1)!.worker.dispatchEvent(new ErrorEvent('error', { message: 'simulated crash' }))
    const crashed = await first
    // A purge that finished before the crash resolves to its count instead.
    if (typeof crashed !== 'number') expect(crashed).toMatchObject({ name: 'PurgeWorkerError' })
    await within(db.raw.count('s'), 'a read of the store')
    await within(db.put('s', { id: 'after', ttl: -1 }), 'a write to the store')
    await within(db.purgeExpired('s'), 'the next purge')
    expect(await db.raw.count('s')).toBe(21)
    db.close()
  }
}, 120_000)

test('a worker kept waiting on a transaction held elsewhere for two watchdog periods is ended: the slice and purgeExpired fail, the next purge runs on a fresh worker', async () => {
  workers = spyWorkers()
  const clock = manualClock()
  const name = uniqueName('stuck-worker')
  const db = await freshDB({ clock, stores, purge: { mode: 'off' } }, name)
  await db.putAll('s', [{ id: 1, ttl: 1 }, { id: 2 }])
  clock.advance(2_000)
  const raw = await openDB(name)
  const purger = new WorkerPurger({ name, stores, batchSize: 10, sliceMs: 10 }, 1000)
  try {
    const slicing = purger.slice(clock()).catch((e) => e)
    const purging = purger.purgeAll(['s'], clock()).catch((e) => e)
    let failed = false
    const both = Promise.all([slicing, purging]).finally(() => (failed = true))
    // The page holds the settings store until the worker is given up, as a transaction WebKit
    // leaked would hold it for good.
    const held = raw.transaction('__idb_ttl_meta', 'readwrite')
    while (!failed) await held.store.get('s')
    await held.done
    expect(await both).toEqual([expect.objectContaining({ name: 'PurgeWorkerError' }), expect.objectContaining({ name: 'PurgeWorkerError' })])
    expect(workers.started[0].terminated).toBe(true)
    expect(await purger.purgeAll(['s'], clock())).toBe(1)
    expect(workers.started).toHaveLength(2)
  } finally {
    await purger.close()
    raw.close()
  }
})

test('a worker kept waiting at times, for several watchdog periods in all, is left alone while its batches commit: a slice and purgeExpired complete', async () => {
  workers = spyWorkers()
  const clock = manualClock()
  const name = uniqueName('busy-worker')
  const db = await freshDB({ clock, stores, purge: { mode: 'off' } }, name)
  // A second apart: an idle batch finishes the second it is in, so items of one second would
  // go in one batch; here each of the 16 batches takes one item.
  for (let i = 0; i < 16; i++) {
    await db.put('s', { id: i, ttl: 1 })
    clock.advance(1_000)
  }
  clock.advance(1_000)
  const raw = await openDB(name)
  const watchdogMs = 1000
  const purger = new WorkerPurger({ name, stores, batchSize: 1, sliceMs: 10 }, watchdogMs)
  try {
    const started = performance.now()
    const slicing = purger.slice(clock())
    const purging = purger.purgeAll(['s'], clock())
    let finished = false
    const both = Promise.all([slicing, purging]).finally(() => (finished = true))
    // The page holds the purged store in turns of 300 ms, as a slow engine or other tabs' writes
    // would: each of the worker's one-item batches waits for a turn to end. (Not the settings
    // store: a pass reads the settings once, so its batches would not wait for it.)
    while (!finished) {
      const held = raw.transaction('s', 'readwrite')
      const until = performance.now() + 300
      while (performance.now() < until && !finished) await held.store.get('s')
      await held.done
    }
    const [reports, purged] = await both
    expect(reports.reduce((n, report) => n + report.deleted, 0) + purged).toBe(16)
    // Long enough for the watchdog to have judged the worker twice.
    expect(performance.now() - started).toBeGreaterThan(2 * watchdogMs)
    expect(workers.started).toHaveLength(1)
    expect(workers.started[0].terminated).toBe(false)
  } finally {
    await purger.close()
    raw.close()
  }
})

test('an upgrade from another connection is not blocked by the worker, which reopens afterwards', async () => {
  const clock = manualClock()
  const name = uniqueName()
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', maxIntervalMs: 60_000 } }, name)
  await db.put('s', { id: 'a' })
  clock.advance(10_000)
  expect(await db.purgeExpired()).toBe(1) // the worker's own connection is open now
  let blocked = false
  const other = await openDB(name, 2, { upgrade: (raw) => void raw.createObjectStore('x'), blocked: () => void (blocked = true) })
  expect(blocked).toBe(false)
  other.close()
  await db.put('s', { id: 'b' })
  clock.advance(10_000)
  // The worker's background slice, judged by the clock when its batch runs, may take 'b' first.
  await db.purgeExpired()
  expect(await db.raw.count('s')).toBe(0)
})

test('two connections elect one purger; the second takes over when the first closes', async () => {
  const clock = manualClock()
  const name = uniqueName()
  const options = { clock, stores, purge: { mode: 'worker' as const, maxIntervalMs: 20 } }
  const a = await freshDB(options, name)
  await until(() => expect(a.isPurger).toBe(true))
  const b = await freshDB(options, name)
  const byA: PurgeReport[] = []
  const byB: PurgeReport[] = []
  a.onPurge((r) => byA.push(r))
  b.onPurge((r) => byB.push(r))
  await b.putAll('s', [{ id: 1 }, { id: 2 }])
  clock.advance(10_000)
  await until(() => expect(byA.reduce((n, r) => n + r.deleted, 0)).toBe(2))
  expect(await b.raw.count('s')).toBe(0)
  expect(b.isPurger).toBe(false)
  expect(byB).toEqual([])
  a.close()
  await until(() => expect(b.isPurger).toBe(true))
  await b.put('s', { id: 3 })
  clock.advance(10_000)
  await until(() => expect(byB.reduce((n, r) => n + r.deleted, 0)).toBe(1))
  expect(await b.raw.count('s')).toBe(0)
})

test('a listener added in the page while the worker runs purgeExpired hears the batches the worker deletes after that', { timeout: 30_000 }, async () => {
  const clock = manualClock()
  const name = uniqueName('listen-late')
  // The purge lock is held elsewhere (as by another tab): no background slice runs in this
  // page's worker, whose later slices would ask afresh who listens; only purgeExpired purges.
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  await new Promise<void>((granted) => void navigator.locks.request(`idb-ttl:purge:${name}`, () => (granted(), held)))
  try {
    const db = await freshDB({ clock, stores, purge: { mode: 'worker', batchSize: 1 } }, name)
    await db.putAll('s', Array.from({ length: 300 }, (_, i) => ({ id: i })))
    clock.advance(10_000)
    const purging = db.purgeExpired('s')
    // Nobody listened when the purge started: the worker deletes keys only, one per batch.
    await until(async () => expect(await db.raw.count('s')).toBeLessThan(300))
    const heard: number[] = []
    db.onExpire((e) => heard.push(...e.items.map((item) => item.key as number)))
    expect(await purging).toBe(300)
    // Before, who listens was decided once per purge: nothing was heard.
    await until(() => expect(heard.length).toBeGreaterThan(0))
    expect(db.isPurger).toBe(false)
  } finally {
    release()
  }
})
