// `idb-ttl/core` in a real browser: its background purge runs in the purge worker (the core has
// no purge of its own on the page), and so does its purgeExpired.
import { wrap } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import { openTtlDB, type TtlCoreDB } from '../../src/core.js'
import { manualClock, uniqueName } from '../helpers.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 15_000, interval: 10 })
const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

let db: TtlCoreDB<any> | undefined
const Original = globalThis.Worker
afterEach(() => {
  globalThis.Worker = Original
  db?.close()
})

/** Records the URL of every Worker the page starts. */
function spyWorkers(): string[] {
  const started: string[] = []
  globalThis.Worker = class extends Original {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options)
      started.push(String(url))
    }
  }
  return started
}

test("the core's background purge deletes expired items in its worker, with no purgeExpired call", async () => {
  const started = spyWorkers()
  const clock = manualClock()
  db = await openTtlDB<any>(uniqueName('core-worker'), { version: 1, stores, clock, purge: { mode: 'worker', maxIntervalMs: 20 } })
  await db.putAll('s', [...Array.from({ length: 50 }, (_, i) => ({ id: i })), { id: 'live', ttl: -1 }])
  clock.advance(10_000)
  await until(async () => expect(await wrap(db!.raw).getAllKeys('s')).toEqual(['live']))
  expect(started).toEqual([expect.stringContaining('purge-worker')])
})

test("the core's purgeExpired runs in the worker too, also with the background purge off", async () => {
  const started = spyWorkers()
  const clock = manualClock()
  db = await openTtlDB<any>(uniqueName('core-worker'), { version: 1, stores, clock, purge: { mode: 'off' } })
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }, { id: 'live', ttl: -1 }])
  expect(started, 'the worker starts lazily').toEqual([])
  clock.advance(10_000)
  expect(await db.purgeExpired()).toBe(2)
  expect(await wrap(db.raw).getAllKeys('s')).toEqual(['live'])
  expect(started).toEqual([expect.stringContaining('purge-worker')])
})
