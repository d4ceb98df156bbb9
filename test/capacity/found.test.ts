/**
 * Defects found by the property test (test/semantics/stores.property.test.ts, capped runs), each
 * as the smallest deterministic history that shows it. Every test here states what the SPEC
 * requires (§9: the purge evicts the surplus of live items, in the store's order, and reports the
 * evicted with reason 'evicted'; §8: expired items are reported as 'expired').
 *
 * Both come from one cause: eviction takes its victims in `_ts` order over every item on disk,
 * dead ones included, as if the batch had already deleted every dead item. Two ways leave dead
 * items on disk when a batch evicts: a background slice leaves a TTL-off store's dead items alone
 * (the watermarks of §3 keep them dead), and a pass that resumes leaves dead marks below where it
 * resumes (a keepTs write, or a connection whose clock is behind, writes them there).
 */
import { openDB, unwrap } from 'idb'
import { expect, test, vi } from 'vitest'
import type { ExpireEvent } from '../../src/index.js'
import { NO_COURTESY } from '../../src/purge/purge.js'
import { createPurgeApi } from '../../src/background/worker/purge-api.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'

const T0 = 1_700_000_000_000

/** What the scheduler does: one purge API, its resume state carried from slice to slice. */
function purgerOf(name: string, stores: Record<string, unknown>, batchSize: number, sliceMs: number) {
  const conn = openDB(name).then((db) => unwrap(db) as IDBDatabase)
  const api = createPurgeApi({ name, stores, batchSize, sliceMs } as never, () => conn, () => {}, NO_COURTESY)
  return { api, close: async () => (await conn).close() }
}

test('a TTL-off capped store: the background purge evicts a live item, not one the watermarks left dead, and keeps the cap', async () => {
  const clock = manualClock(T0)
  const name = uniqueName('found-cap-off')
  const stores = { s: { keyPath: 'id', defaultTtl: 10, maxEntries: 1 } }
  const db = await freshDB({ clock, stores }, name)
  const heard: ExpireEvent[] = []
  db.onExpire((event) => heard.push(event))
  const purger = purgerOf(name, stores, 300, 30)
  try {
    await db.put('s', { id: 'old' }) // expires at T0 + 10 s
    clock.advance(10_000)
    await db.setDefaultTtl('s', null) // TTL off: 'old' stays dead for good (SPEC §3), still on disk
    await db.put('s', { id: 'b' })
    clock.advance(1_000)
    await db.put('s', { id: 'c' }) // two live items, the cap is one
    expect(await db.getAllKeys('s')).toEqual(['b', 'c'])

    const [report] = await purger.api.slice(clock.now)

    expect(report.more).toBe(false) // the slice says it is done with the store...
    expect(await db.getAllKeys('s')).toEqual(['c']) // ...so the cap must hold: 'b', the oldest live item, evicted
    expect(report.evicted).toBe(1)
    await vi.waitFor(() => expect(heard.filter((e) => e.reason === 'evicted')).toHaveLength(1), { timeout: 2_000, interval: 5 })
    const evicted = heard.filter((e) => e.reason === 'evicted').flatMap((e) => e.items.map((item) => item.key))
    expect(evicted, "reported as 'evicted'").toEqual(['b']) // not 'old', which had expired
  } finally {
    await purger.close()
  }
})

test('a resumed pass evicts live items, and counts as evicted only those, though dead items lie below where it resumed', async () => {
  const clock = manualClock(T0)
  const name = uniqueName('found-cap-resume')
  const stores = { s: { keyPath: 'id', defaultTtl: 1, keepTs: true, maxEntries: 1 } }
  const db = await freshDB({ clock, stores }, name)
  // Batches of one, one batch per slice: the pass resumes where the last batch stopped.
  const purger = purgerOf(name, stores, 1, 1e-6)
  try {
    await db.put('s', { id: 'a', _ts: T0 / 1000 - 1 }) // keepTs: dead at T0
    await db.put('s', { id: 'e' })
    const [first] = await purger.api.slice(clock.now) // takes 'a', stops: more to do
    expect(first).toMatchObject({ deleted: 1, evicted: 0, more: true })
    await db.put('s', { id: 'a', _ts: 0 }) // dead again, its mark below where the pass resumes
    await db.put('s', { id: 'f', ttl: 1 }) // two live items (e, f), the cap is one
    expect(await db.getAllKeys('s')).toEqual(['e', 'f'])

    const [report] = await purger.api.slice(clock.now)

    // What left the disk: the dead 'a', which counts as deleted but was not evicted.
    const onDisk = await db.raw.getAllKeys('s')
    const liveEvicted = ['e', 'f'].filter((id) => !onDisk.includes(id)).length
    expect(report.deleted).toBe(3 - onDisk.length)
    expect(report.evicted, `evicted counts live items only; on disk now: ${JSON.stringify(onDisk)}`).toBe(liveEvicted)
  } finally {
    await purger.close()
  }
})
