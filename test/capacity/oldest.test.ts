// SPEC §9 'oldest': the victims are the live items least recently written, ties of _ts broken by
// write order, however many items share a second and wherever dead items lie among them.
import { unwrap } from 'idb'
import { expect, test } from 'vitest'
import { victims } from '../../src/purge/eviction.js'
import { cutoffs, type StoreState } from '../../src/rules/policy.js'
import { freshDB, manualClock } from '../helpers.js'

/** `ids` in a shuffled order (seeded), so that write order and key order differ. */
function shuffled(ids: string[]): string[] {
  let seed = 7
  const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647
  const list = [...ids]
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1))
    ;[list[i], list[j]] = [list[j], list[i]]
  }
  return list
}

test("'oldest' victims over seconds of 10, 300 and 40 items written out of key order, dead items among them", async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 1 } }, purge: { mode: 'off' } })
  // Three seconds of 10, 300 and 40 items; every seventh dies (ttl 1) before the eviction.
  for (const [second, size] of [[0, 10], [1, 300], [2, 40]] as const) {
    const ids = shuffled(Array.from({ length: size }, (_, i) => `${second}-${String(i).padStart(3, '0')}`))
    await db.putAll('s', ids.map((id, i) => ({ id, ...(i % 7 === 3 ? { ttl: 1 } : {}) })))
    clock.advance(1_000)
  }
  clock.advance(5_000)
  const stored = (await db.raw.getAll('s')) as { id: string; ttl?: number; _ts: number; $at: number }[]
  const expected = stored
    .filter((item) => item.ttl === undefined)
    .sort((a, b) => a._ts - b._ts || a.$at - b.$at)
    .map((item) => item.id)
  const native = unwrap(db.raw)
  const state = (await db.raw.get('__idb_ttl_meta', 's')) as StoreState
  for (const limit of [1, 9, 20, 100, 320, 1000]) {
    const store = native.transaction('s', 'readwrite').objectStore('s')
    expect(await victims(store, state, cutoffs(state, clock()), limit)).toEqual(expected.slice(0, limit))
  }
})
