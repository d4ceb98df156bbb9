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

/** A store of three seconds of 10, 300 and 40 items written out of key order; every seventh dies (ttl 1) when `dying`. */
async function threeSeconds(dying: boolean) {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600, maxEntries: 1 } }, purge: { mode: 'off' } })
  for (const [second, size] of [[0, 10], [1, 300], [2, 40]] as const) {
    const ids = shuffled(Array.from({ length: size }, (_, i) => `${second}-${String(i).padStart(3, '0')}`))
    await db.putAll('s', ids.map((id, i) => ({ id, ...(dying && i % 7 === 3 ? { ttl: 1 } : {}) })))
    clock.advance(1_000)
  }
  clock.advance(5_000)
  const stored = (await db.raw.getAll('s')) as { id: string; ttl?: number; _ts: number; $at: number }[]
  const expected = stored
    .filter((item) => item.ttl === undefined)
    .sort((a, b) => a._ts - b._ts || a.$at - b.$at)
    .map((item) => item.id)
  const state = (await db.raw.get('__idb_ttl_meta', 's')) as StoreState
  const store = () => unwrap(db.raw).transaction('s', 'readwrite').objectStore('s')
  return { clock, state, store, expected }
}

test.each([false, true])("'oldest' victims nobody hears of (unordered) are the same items as the ordered ones (dead items among them: %s)", async (dying) => {
  const { clock, state, store, expected } = await threeSeconds(dying)
  for (const limit of [1, 9, 10, 11, 20, 100, 310, 320, 1000]) {
    const unordered = await victims(store(), state, cutoffs(state, clock()), limit, [], false)
    expect(unordered.length).toBe(Math.min(limit, expected.length))
    expect(new Set(unordered)).toEqual(new Set(expected.slice(0, limit)))
  }
})

test("'oldest' victims nobody hears of, with no dead item on disk, read the values of the last second they take from only", async () => {
  const { clock, state, store, expected } = await threeSeconds(false)
  const read: number[] = []
  const { getAll, openCursor } = IDBIndex.prototype
  // Every value an index hands out: by getAll, or one by one by a cursor.
  IDBIndex.prototype.getAll = function (...args: Parameters<IDBIndex['getAll']>) {
    const request = getAll.apply(this, args)
    request.addEventListener('success', () => read.push(request.result.length))
    return request
  }
  IDBIndex.prototype.openCursor = function (...args: Parameters<IDBIndex['openCursor']>) {
    const request = openCursor.apply(this, args)
    request.addEventListener('success', () => request.result && read.push(1))
    return request
  }
  try {
    // 100 victims: the 10 of the first second, then 90 of the 300 of the second.
    const taken = await victims(store(), state, cutoffs(state, clock()), 100, [], false)
    expect(new Set(taken)).toEqual(new Set(expected.slice(0, 100)))
  } finally {
    Object.assign(IDBIndex.prototype, { getAll, openCursor })
  }
  expect(read.reduce((a, b) => a + b, 0)).toBe(300)
})
