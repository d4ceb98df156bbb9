// SPEC §8 onExpire in one realm (Node and the browser page): every listening handle hears each
// deletion once, with the value as stored, after the deleting transaction committed.
import { expect, test, vi } from 'vitest'
import type { ExpireEvent } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 5 })
const keysOf = (events: ExpireEvent[]) => events.flatMap((e) => e.items.map((i) => i.key)).sort()
const stores = { s: { keyPath: 'id', defaultTtl: 10, indexes: { byEmail: { keyPath: 'email', unique: true } } }, t: { keyPath: 'id', defaultTtl: 10 } }

async function twoHandles() {
  const clock = manualClock()
  const name = uniqueName('expire')
  const first = await freshDB({ clock, stores }, name)
  const second = await freshDB({ clock, stores }, name)
  const heard = { first: [] as ExpireEvent[], second: [] as ExpireEvent[] }
  first.onExpire((e) => heard.first.push(e))
  second.onExpire((e) => heard.second.push(e))
  return { clock, first, second, heard }
}

test('two handles each hear every purged item once, with its value and _ts', async () => {
  const { clock, first, second, heard } = await twoHandles()
  await first.putAll('s', Array.from({ length: 7 }, (_, i) => ({ id: i, v: `v${i}` })))
  const ts = (await first.get('s', 0))!._ts
  clock.advance(10_000)
  expect(await second.purgeExpired('s')).toBe(7)
  await until(() => expect(keysOf(heard.first)).toEqual([0, 1, 2, 3, 4, 5, 6]))
  await until(() => expect(keysOf(heard.second)).toEqual([0, 1, 2, 3, 4, 5, 6]))
  expect(heard.first.every((e) => e.store === 's' && e.reason === 'expired')).toBe(true)
  expect(heard.first.flatMap((e) => e.items)).toContainEqual({ key: 3, value: { id: 3, v: 'v3', _ts: ts } })
  // Nothing more arrives for those deletions: a later purge's events come after them.
  await first.put('t', { id: 'probe' })
  clock.advance(10_000)
  await first.purgeExpired('t')
  await until(() => expect(heard.second.at(-1)?.store).toBe('t'))
  expect(keysOf(heard.second)).toEqual([0, 1, 2, 3, 4, 5, 6, 'probe'])
  expect(keysOf(heard.first)).toEqual([0, 1, 2, 3, 4, 5, 6, 'probe'])
})

test('delete and clear are not reported; room claimed from a dead holder is', async () => {
  const { clock, first, heard } = await twoHandles()
  await first.putAll('s', [{ id: 'a', email: 'a@x' }, { id: 'b' }, { id: 'c' }])
  await first.delete('s', 'b')
  await first.clear('t')
  clock.advance(10_000)
  await first.put('s', { id: 'd', email: 'a@x' })
  await until(() => expect(keysOf(heard.second)).toEqual(['a']))
  await first.purgeExpired('s')
  await until(() => expect(keysOf(heard.second)).toEqual(['a', 'c']))
  expect(keysOf(heard.first)).toEqual(['a', 'c'])
})

test('a store filter keeps the events of those stores only; off() stops them', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  const onlyT: ExpireEvent[] = []
  const all: ExpireEvent[] = []
  db.onExpire((e) => onlyT.push(e), { stores: ['t'] })
  const off = db.onExpire((e) => all.push(e))
  await db.put('s', { id: 1 })
  await db.put('t', { id: 2 })
  clock.advance(10_000)
  await db.purgeExpired()
  await until(() => expect(keysOf(all)).toEqual([1, 2]))
  expect(keysOf(onlyT)).toEqual([2])
  off()
  await db.put('t', { id: 3 })
  clock.advance(10_000)
  await db.purgeExpired('t')
  await until(() => expect(keysOf(onlyT)).toEqual([2, 3]))
  expect(keysOf(all)).toEqual([1, 2])
})

test('without listeners the purge reads no values; with one, it reads only the stores listened to', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  const getAll = vi.spyOn(IDBIndex.prototype, 'getAll')
  try {
    await db.putAll('s', [{ id: 1 }, { id: 2 }])
    await db.putAll('t', [{ id: 1 }])
    clock.advance(10_000)
    expect(await db.purgeExpired()).toBe(3)
    expect(getAll).not.toHaveBeenCalled()
    db.onExpire(() => {}, { stores: ['t'] })
    await db.putAll('s', [{ id: 3 }])
    await db.putAll('t', [{ id: 4 }])
    clock.advance(10_000)
    expect(await db.purgeExpired()).toBe(2)
    expect(new Set(getAll.mock.contexts.map((index) => (index as IDBIndex).objectStore.name))).toEqual(new Set(['t']))
  } finally {
    getAll.mockRestore()
  }
})

test('in a store that keeps no generations, an item with a field shaped like a reference to one is reported with its value', async () => {
  // Reads follow `$gen` only in stores that keep their values in generations; events must too.
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  const heard: ExpireEvent[] = []
  db.onExpire((e) => heard.push(e))
  const item = { id: 'a', $gen: { g: 0, w: 'mine' } }
  await db.put('t', item)
  const ts = (await db.get('t', 'a'))!._ts
  expect(await db.get('t', 'a')).toEqual({ ...item, _ts: ts })
  clock.advance(10_000)
  expect(await db.purgeExpired('t')).toBe(1)
  await until(() => expect(heard.flatMap((e) => e.items)).toHaveLength(1))
  expect(heard[0].items[0]).toEqual({ key: 'a', value: { ...item, _ts: ts } })
})

test('a listener added while purgeExpired runs hears the batches deleted after it was added', { timeout: 15_000 }, async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores, purge: { mode: 'off', batchSize: 1 } })
  await db.putAll('t', [1, 2, 3, 4, 5].map((id) => ({ id })))
  clock.advance(10_000)
  const heard: ExpireEvent[] = []
  // Nobody listens when the purge starts; the first batch (one item) adds a listener as it deletes.
  const { delete: remove } = IDBObjectStore.prototype
  let first: unknown
  const spy = vi.spyOn(IDBObjectStore.prototype, 'delete').mockImplementation(function (this: IDBObjectStore, query) {
    if (first === undefined && this.name === 't') {
      first = query
      db.onExpire((e) => heard.push(e))
    }
    return remove.call(this, query)
  })
  try {
    expect(await db.purgeExpired('t')).toBe(5)
  } finally {
    spy.mockRestore()
  }
  // Before, who listens was decided once per purge: the listener heard nothing.
  // (Batches go in expiry-mark order, then key order: the items share their second.)
  await until(() => expect(keysOf(heard)).toEqual([1, 2, 3, 4, 5].filter((id) => id !== first)))
  expect(heard.every((e) => e.reason === 'expired' && e.items.every((item) => (item.value as { id: number }).id === item.key))).toBe(true)
})
