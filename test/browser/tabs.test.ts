// Across pages of one browser: app versions, wake-ups, a database deleted or upgraded from
// another page, a worker that crashes, and close.
import { deleteDB, openDB } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import { deleteTtlDB, type PurgeReport, type TtlDB } from '../../src/index.js'
import { READY } from '../../src/background/worker/api.js'
import { freshDB, IN_FIREFOX, manualClock, uniqueName } from '../helpers.js'
import { openPage } from './pages.js'
import { timersOnClock } from '../purge/timers.js'
import { crashThroughFirstBackOff } from '../purge/back-off.js'

const until = (check: () => Promise<void> | void, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 10 })
const deleted = (reports: PurgeReport[], store: string) =>
  reports.filter((r) => r.store === store).reduce((n, r) => n + r.deleted, 0)
const stores = { s: { keyPath: 'id', defaultTtl: 3600 } }

const opened: TtlDB<any>[] = []
afterEach(() => opened.splice(0).forEach((db) => db.close()))

/**
 * Has every worker the page starts run a script that starts (says it is ready, as the purge
 * worker does) and then crashes: an uncaught error 20 ms after the page's first message. (A
 * worker whose script does not load is not retried: the purge runs inline, worker-fallback.test.ts.)
 * Records when each started; returns the records and a function that puts the real `Worker` back.
 */
function crashingWorkers(): { started: number[]; restore: () => void } {
  const Original = globalThis.Worker
  const script = `self.postMessage(${JSON.stringify(READY)})
self.addEventListener('message', () => setTimeout(() => { throw new Error('simulated crash') }, 20), { once: true })`
  const url = URL.createObjectURL(new Blob([script], { type: 'text/javascript' }))
  const started: number[] = []
  globalThis.Worker = class extends Original {
    constructor(_url: string | URL, options?: WorkerOptions) {
      super(url, options)
      started.push(performance.now())
    }
  }
  return { started, restore: () => ((globalThis.Worker = Original), URL.revokeObjectURL(url)) }
}

test('the purger page purges a store that only a newer app version, in another page, declares', async () => {
  const clock = manualClock()
  const name = uniqueName('versions')
  const older = await freshDB({ clock, version: 1, purge: { mode: 'worker' }, stores: { a: { keyPath: 'id', defaultTtl: 10 } } }, name)
  await until(() => expect(older.isPurger).toBe(true))
  const reports: PurgeReport[] = []
  older.onPurge((r) => reports.push(r))
  const page = await openPage()
  const newer = await page.lib.openTtlDB(name, {
    version: 2,
    clock,
    purge: { mode: 'worker' },
    stores: { a: { keyPath: 'id', defaultTtl: 10 }, b: { keyPath: 'id', defaultTtl: 10 } },
  })
  opened.push(newer)
  expect(newer.isPurger).toBe(false)
  await newer.putAll('b', Array.from({ length: 5 }, (_, i) => ({ id: i })))
  clock.advance(10_000)
  await until(() => expect(deleted(reports, 'b')).toBe(5))
  expect(await newer.raw.count('b')).toBe(0)
})

test('a write in a page that is not the purger wakes the purger in another page', async () => {
  const clock = manualClock()
  const name = uniqueName('wake')
  const purge = { mode: 'worker' as const, maxIntervalMs: 600_000 }
  const purger = await freshDB({ clock, stores, purge }, name)
  const reports: PurgeReport[] = []
  purger.onPurge((r) => reports.push(r))
  await until(() => expect(purger.isPurger).toBe(true))
  // A slice that deleted something: the purger now sleeps until the next expiry, an hour away.
  await purger.putAll('s', [{ id: 'first', ttl: 1 }, { id: 'long' }])
  clock.advance(1_000)
  await until(() => expect(deleted(reports, 's')).toBe(1))
  const page = await openPage()
  const other = await page.lib.openTtlDB(name, { version: 1, clock, stores, purge })
  opened.push(other)
  expect(other.isPurger).toBe(false)
  await other.put('s', { id: 'short', ttl: 1 })
  clock.advance(1_000)
  await until(() => expect(deleted(reports, 's')).toBe(2))
  await other.setDefaultTtl('s', 1)
  await until(() => expect(deleted(reports, 's')).toBe(3))
})

// Firefox keeps evictOnQuota values in their rows (src/layout/generation-index.ts).
test.skipIf(IN_FIREFOX)('a page whose current generation another page moved past moves on too: no generation grows beyond its share', async () => {
  const name = uniqueName('gen-pages')
  const genStores = { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } }
  // About 100 kB each: a generation (256 kB at this origin's quota) is full at the third.
  const value = (id: string) => ({ id, body: 'x'.repeat(50_000) })
  const here = await freshDB({ stores: genStores }, name)
  try {
    await here.put('s', value('a0'))
    const page = await openPage()
    const there = await page.lib.openTtlDB(name, { version: 1, stores: genStores, purge: { mode: 'off' } })
    opened.push(there)
    for (let i = 0; i < 6; i++) await there.put('s', value(`b${i}`))
    for (let i = 1; i <= 8; i++) await here.put('s', value(`a${i}`))
    const rows = (await here.raw.getAll('s')) as { id: string; $gen: { g: number } }[]
    const perGeneration = new Map<number, string[]>()
    for (const row of rows) perGeneration.set(row.$gen.g, [...(perGeneration.get(row.$gen.g) ?? []), row.id])
    // Three fill one; one more may come from the page that had not seen it full. Before, this
    // page kept writing into generation 0 (12 values).
    for (const [g, ids] of perGeneration) expect(ids.length, `generation ${g} holds ${ids.join(', ')}`).toBeLessThanOrEqual(5)
  } finally {
    here.close()
    opened.splice(0).forEach((db) => db.close())
    await deleteTtlDB(name)
  }
})

test('after another page deletes the database, the handle recreates it at its declared version', async () => {
  const clock = manualClock()
  const name = uniqueName('deleted')
  const upgrades: [number, number | null][] = []
  const db = await freshDB({ clock, version: 3, stores, purge: { mode: 'worker' }, upgrade: (_raw, from, to) => void upgrades.push([from, to]) }, name)
  await db.put('s', { id: 'a' })
  expect(await db.purgeExpired()).toBe(0) // the worker has its own connection open too
  const page = await openPage()
  await new Promise<void>((resolve, reject) => {
    const request = page.window.indexedDB.deleteDatabase(name)
    request.onsuccess = () => resolve()
    request.onerror = () => reject(request.error)
    request.onblocked = () => reject(new Error('the deletion was blocked'))
  })
  await db.put('s', { id: 'b' })
  expect(db.raw.version).toBe(3)
  expect(upgrades).toEqual([[0, 3], [0, 3]])
  expect(await db.getAllKeys('s')).toEqual(['b'])
  clock.advance(3_600_000)
  expect(await db.purgeExpired()).toBe(1)
})

// Two upgrades back to back: the purge worker, stepping aside for the first, reopens just as the
// second is asked for. WebKitGTK loses the second versionchange for the worker's new connection
// (from whichever page the upgrade comes; no `blocked` either): the upgrade waits for the probe
// of src/connection.ts to make that connection step aside, where it used to wait about 90 s.
test('an upgrade from another page in the middle of a multi-batch worker purge does not stop it', async () => {
  const clock = manualClock()
  const name = uniqueName('upgraded')
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', batchSize: 10, maxIntervalMs: 600_000 } }, name)
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  await db.putAll('s', Array.from({ length: 3000 }, (_, i) => ({ id: i })))
  await db.put('s', { id: 'live', ttl: -1 })
  clock.advance(3_600_000)
  const purging = db.purgeExpired('s')
  await until(async () => expect(await db.raw.count('s')).toBeLessThan(3001))
  const page = await openPage()
  const other = await openDB(name, 2, { upgrade: (raw) => void raw.createObjectStore('added') }) // idb in this page…
  other.close()
  // …and a second upgrade from the other page's own IndexedDB.
  await new Promise<void>((resolve, reject) => {
    const request = page.window.indexedDB.open(name, 3)
    const late = setTimeout(() => reject(new Error('the upgrade from the other page still waits after 10 s')), 10_000)
    request.onupgradeneeded = () => request.result.createObjectStore('more')
    request.onsuccess = () => (clearTimeout(late), request.result.close(), resolve())
    request.onerror = () => (clearTimeout(late), reject(request.error))
  })
  expect(await purging).toBeGreaterThan(0)
  await until(() => expect(deleted(reports, 's')).toBe(3000))
  expect(reports.filter((r) => r.error)).toEqual([])
  expect(await db.count('s')).toBe(1)
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})

test('a worker that crashes once started is tried once per back-off step; requests succeed', async () => {
  const { started, restore } = crashingWorkers()
  const clock = manualClock()
  // The scheduler's sleeps and the idle callbacks on the clock: the back-off is counted in clock
  // time, without sleeping through it.
  const waits = timersOnClock('src/background/scheduler', clock)
  try {
    const db = await freshDB({ clock, stores, purge: { mode: 'worker', idleTimeoutMs: 5 } })
    const failures = await crashThroughFirstBackOff(db, clock, waits, () => started.length)
    expect(failures[0]).toMatchObject({ store: '*', error: { name: 'PurgeWorkerError', message: expect.stringContaining('simulated crash') } })
  } finally {
    waits.restore()
    restore()
  }
})

test('purgeExpired() right before close() rejects CLOSED and leaves no worker running', async () => {
  const Original = globalThis.Worker
  const workers: { terminated: boolean }[] = []
  globalThis.Worker = class extends Original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options)
      const entry = { terminated: false }
      workers.push(entry)
      const terminate = this.terminate.bind(this)
      this.terminate = () => ((entry.terminated = true), terminate())
    }
  }
  try {
    const db = await freshDB({ stores, purge: { mode: 'worker', idleTimeoutMs: 600_000 } })
    const purging = db.purgeExpired().catch((error) => error)
    db.close()
    expect(await purging).toMatchObject({ name: 'TtlError', code: 'CLOSED' })
    expect(workers.filter((w) => !w.terminated)).toEqual([])
  } finally {
    globalThis.Worker = Original
  }
})

test('a page about to be frozen hands the purge over to another page; hidden, it yields to a page waiting', async () => {
  const clock = manualClock()
  const name = uniqueName('lifecycle')
  const purge = { mode: 'inline' as const, maxIntervalMs: 20 }
  const here = await freshDB({ clock, stores, purge }, name)
  await until(() => expect(here.isPurger).toBe(true))
  const page = await openPage()
  const there = await page.lib.openTtlDB(name, { version: 1, clock, stores, purge })
  opened.push(there)
  expect(there.isPurger).toBe(false)
  document.dispatchEvent(new Event('freeze'))
  await until(() => expect(there.isPurger).toBe(true))
  expect(here.isPurger).toBe(false)
  const reports: PurgeReport[] = []
  there.onPurge((r) => reports.push(r))
  await here.put('s', { id: 'x', ttl: 1 })
  clock.advance(1_000)
  await until(() => expect(deleted(reports, 's')).toBe(1))
  // Resumed, this page queues again; the other page, turning hidden, lets it take over.
  document.dispatchEvent(new Event('resume'))
  Object.defineProperty(page.window.document, 'visibilityState', { value: 'hidden', configurable: true })
  page.window.document.dispatchEvent(new Event('visibilitychange'))
  await until(() => expect(here.isPurger).toBe(true))
  expect(there.isPurger).toBe(false)
})

test('a hidden purger with no other page waiting keeps purging', async () => {
  const clock = manualClock()
  const page = await openPage()
  const name = uniqueName('hidden')
  const db = await page.lib.openTtlDB(name, { version: 1, clock, stores, purge: { mode: 'inline', maxIntervalMs: 20 } })
  opened.push(db)
  await until(() => expect(db.isPurger).toBe(true))
  Object.defineProperty(page.window.document, 'visibilityState', { value: 'hidden', configurable: true })
  page.window.document.dispatchEvent(new Event('visibilitychange'))
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  await db.put('s', { id: 'x', ttl: 1 })
  clock.advance(1_000)
  await until(() => expect(deleted(reports, 's')).toBe(1))
  expect(db.isPurger).toBe(true)
  db.close()
  await deleteDB(name)
})

test('a purger page whose worker crashes hands the purge to another page waiting for it', async () => {
  const { restore } = crashingWorkers()
  try {
    const clock = manualClock()
    const name = uniqueName('broken')
    const purge = { mode: 'worker' as const, maxIntervalMs: 20 }
    const broken = await freshDB({ clock, stores, purge }, name)
    await until(() => expect(broken.isPurger).toBe(true))
    const page = await openPage()
    // Inline in the second page: in Firefox, a purge worker started from a second popup of a
    // test file never answers (a harness quirk, not the library's); what is tested is the lock.
    const working = await page.lib.openTtlDB(name, { version: 1, clock, stores, purge: { ...purge, mode: 'inline' } })
    opened.push(working)
    const reports: PurgeReport[] = []
    working.onPurge((r) => reports.push(r))
    await broken.put('s', { id: 'x', ttl: 1 })
    clock.advance(1_000)
    await until(() => expect(deleted(reports, 's')).toBe(1))
    expect(working.isPurger).toBe(true)
  } finally {
    restore()
  }
})
