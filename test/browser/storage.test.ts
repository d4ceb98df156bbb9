// SPEC §16 across realms: the purge worker purges a database in its Storage Bucket (Chromium),
// and the registry of databases seen outlives a page, so that the next page is told of a
// database the browser took (deleting it stands in for eviction; in Chromium, deleting its bucket).
import { deleteDB } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import { cdp, server } from 'vitest/browser'
import type { LostReport, PurgeReport, TtlDB } from '../../src/index.js'
import { createStore, get, set } from '../../src/keyval.js'
import { lastSeen } from '../../src/platform/seen.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { openPage } from './pages.js'

interface Buckets {
  open(name: string): Promise<{ indexedDB: IDBFactory }>
  delete(name: string): Promise<void>
}
const buckets = (navigator as { storageBuckets?: Buckets }).storageBuckets
const until = (check: () => Promise<void> | void, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 10 })
const stores = { s: { keyPath: 'id', defaultTtl: 3600 } }
const cleanup: (() => unknown)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0)) await step()
})

/** The names of the databases in `factory`, version 0 (an aborted creation in WebKit) aside. */
async function listed(factory: IDBFactory): Promise<string[]> {
  return (await factory.databases()).filter((info) => info.version !== 0).map((info) => info.name!)
}

test.runIf(buckets)('Chromium: the purge worker opens the database in its bucket and purges it there', async () => {
  const bucket = uniqueName('purge').toLowerCase().slice(0, 60)
  cleanup.push(() => buckets!.delete(bucket))
  // Counts the workers the page starts: the purge is the worker's, not an inline fallback.
  const Original = globalThis.Worker
  let workers = 0
  globalThis.Worker = class extends Original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options)
      workers++
    }
  }
  cleanup.push(() => (globalThis.Worker = Original))
  const clock = manualClock()
  const name = uniqueName('bucket-purge')
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } }, bucket: { name: bucket }, purge: { mode: 'worker', maxIntervalMs: 20, idleTimeoutMs: 5 } }, name)
  const reports: PurgeReport[] = []
  db.onPurge((report) => reports.push(report))
  await db.putAll('s', [{ id: 'gone', ttl: 1 }, { id: 'kept', ttl: -1 }])
  clock.advance(5_000)
  await until(async () => {
    expect(await db.raw.getAllKeys('s')).toEqual(['kept'])
    expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(1)
  })
  expect(reports.filter((report) => report.error)).toEqual([])
  expect(workers).toBe(1)
  expect(await listed((await buckets!.open(bucket)).indexedDB)).toContain(name)
  expect(await listed(indexedDB)).not.toContain(name)
})

test('a page is told of the database the browser took since an earlier page last had it open', async () => {
  const name = uniqueName('lost-across-pages')
  const bucket = buckets ? uniqueName('lost').toLowerCase().slice(0, 60) : undefined
  cleanup.push(() => (bucket ? buckets!.delete(bucket) : deleteDB(name)))
  const options = (clock: () => number, reports: LostReport[]) => ({
    version: 1,
    stores,
    clock,
    purge: { mode: 'off' as const },
    ...(bucket && { bucket: { name: bucket } }),
    onLost: (report: LostReport) => reports.push(report),
  })
  const earlier = await openPage()
  const reports: LostReport[] = []
  const first: TtlDB = await earlier.lib.openTtlDB(name, options(() => 1_700_000_000_000, reports))
  await first.putAll('s', [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }])
  first.close()
  await until(async () => expect(await lastSeen(name, bucket ?? null)).toEqual({ lastSeen: 1_700_000_000_000, items: 4 }))
  earlier.close()
  // The browser takes the database: its bucket where it lives in one, else the database itself.
  if (bucket) await buckets!.delete(bucket)
  else await deleteDB(name)
  const later = await openPage()
  const second: TtlDB = await later.lib.openTtlDB(name, options(() => 1_700_000_600_000, reports))
  cleanup.push(() => second.close())
  const report = { name, bucket: bucket ?? null, lastSeen: 1_700_000_000_000, items: 4 }
  expect(reports).toEqual([report])
  expect(second.lost).toEqual(report)
  expect(await second.count('s')).toBe(0)
})

/** A full garbage collection of this page's heap, through Chromium's DevTools protocol. */
const collectGarbage = () => cdp().send('HeapProfiler.collectGarbage')

/** `promise`, or a rejection naming `what` when it has not settled within 5 s: a stalled connection never answers. */
const answered = <T>(what: string, promise: Promise<T>) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in 5 s, its connection stalled`)), 5_000))])

// Chromium stalls every transaction of a connection, for good, once the StorageBucket object it came
// from is garbage collected: the library keeps, with each connection, the bucket it came from.
test.runIf(buckets && server.browser === 'chromium')('Chromium: connections in Storage Buckets keep answering after a garbage collection: a TTL database opened twice, the registry of databases seen, an idb-ttl/keyval store', async () => {
  const bucket = uniqueName('gc').toLowerCase().slice(0, 60)
  cleanup.push(() => buckets!.delete(bucket))
  const name = uniqueName('gc')
  const db = await freshDB({ stores, purge: { mode: 'off' }, bucket: { name: bucket } }, name)
  await db.put('s', { id: 'first' })
  // A second open of the database places it in its bucket anew (as React's StrictMode does), and
  // with onLost opens the registry (in a bucket of its own) in this realm.
  const again = await freshDB({ stores, purge: { mode: 'off' }, bucket: { name: bucket }, onLost: () => {} }, name)
  const store = createStore(uniqueName('gc-keyval'), 'kv', { bucket })
  await set('k', 1, store)
  expect(await lastSeen(name, bucket)).toEqual({ lastSeen: expect.any(Number), items: 1 })
  await collectGarbage()
  await answered('a put by the first handle', db.put('s', { id: 'a' }))
  expect(await answered('a get by the first handle', db.get('s', 'a'))).toMatchObject({ id: 'a' })
  expect(await answered('a get by the second handle', again.get('s', 'a'))).toMatchObject({ id: 'a' })
  // The count the registry holds may follow the put by now: it answers.
  expect(await answered('a read of the registry', lastSeen(name, bucket))).toEqual({ lastSeen: expect.any(Number), items: expect.any(Number) })
  expect(await answered('a get of the keyval store', get('k', store))).toBe(1)
})
