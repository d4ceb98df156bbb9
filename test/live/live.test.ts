// SPEC §11 live queries in one realm (Node and the browser page): the first emission, one after
// each committed change that alters the result, none when it does not, one at the instant an item
// of the result expires (by the injected clock), and the subscribe contracts others accept.
import { afterEach, expect, test, vi } from 'vitest'
import type { LiveQuery } from '../../src/index.js'
import { freshDB, manualClock } from '../helpers.js'
import { captureExpiryTimers } from './timers.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 5 })
type Item = { id: string; user?: string; n?: number; _ts: number }
const stores = {
  s: { keyPath: 'id', defaultTtl: 3600, indexes: { byUser: { keyPath: 'user' } } },
  capped: { keyPath: 'id', defaultTtl: 3600, maxEntries: 2 },
}

/** Subscribes and keeps every emission, as the ids of its items. */
function watch(live: LiveQuery<Item>) {
  const seen: string[][] = []
  const off = live.subscribe((items) => seen.push(items.map((item) => item.id)))
  offs.push(off)
  return { seen, off }
}
const offs: (() => void)[] = []
afterEach(() => offs.splice(0).forEach((off) => off()))

async function opened() {
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  return { clock, db }
}

test('emits the live items at once, as getAll returns them, _ts included', async () => {
  const { db } = await opened()
  await db.putAll('s', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2' }, { id: 'c', user: 'u1', ttl: 60 }])
  const items: Item[][] = []
  offs.push(db.live('s').subscribe((got: Item[]) => items.push(got)))
  await until(() => expect(items).toHaveLength(1))
  expect(items[0]).toEqual(await db.getAll('s'))
  const byUser: Item[][] = []
  offs.push(db.live('s', { index: 'byUser', query: 'u1', count: 1 }).subscribe((got: Item[]) => byUser.push(got)))
  const expected = await db.getAllFromIndex('s', 'byUser', 'u1', 1)
  await until(() => expect(byUser).toEqual([expected]))
})

test.each([
  ['put', (db: any) => db.put('s', { id: 'b' }), ['a', 'b']],
  ['putAll', (db: any) => db.putAll('s', [{ id: 'b' }, { id: 'c' }]), ['a', 'b', 'c']],
  ['update', (db: any) => db.update('s', 'a', { n: 1 }), ['a']],
  ['delete', (db: any) => db.delete('s', 'a'), []],
  ['clear', (db: any) => db.clear('s'), []],
])('emits again after a committed %s', async (_, change, ids) => {
  const { db } = await opened()
  await db.put('s', { id: 'a' })
  const { seen } = watch(db.live('s'))
  await until(() => expect(seen).toEqual([['a']]))
  await change(db)
  await until(() => expect(seen).toEqual([['a'], ids]))
})

test('emits again after setDefaultTtl leaves items dead, and after a purge of items its timer has not yet dropped', async () => {
  const { clock, db } = await opened()
  await db.putAll('s', [{ id: 'inherits' }, { id: 'own', ttl: 60 }, { id: 'never', ttl: -1 }])
  const { seen } = watch(db.live('s'))
  await until(() => expect(seen).toEqual([['inherits', 'never', 'own']]))
  clock.advance(30_000)
  await db.setDefaultTtl('s', 10)
  await until(() => expect(seen).toEqual([['inherits', 'never', 'own'], ['never', 'own']]))
  // The expiry timer waits 30 s of real time for 'own': the purge is what tells the query.
  clock.advance(30_000)
  expect(await db.purgeExpired('s')).toBe(2)
  await until(() => expect(seen.at(-1)).toEqual(['never']))
  expect(seen).toHaveLength(3)
})

test('emits again after an eviction brings a capped store back to maxEntries', async () => {
  const { clock, db } = await opened()
  const { seen } = watch(db.live('capped'))
  await until(() => expect(seen).toEqual([[]]))
  for (const id of ['a', 'b', 'c']) {
    await db.put('capped', { id })
    clock.advance(1_000)
  }
  await until(() => expect(seen.at(-1)).toEqual(['a', 'b', 'c']))
  expect(await db.purgeExpired('capped')).toBe(1)
  await until(() => expect(seen.at(-1)).toEqual(['b', 'c']))
})

test('emits nothing for a write that leaves the result as it was', async () => {
  const { db } = await opened()
  await db.put('s', { id: 'a', user: 'u1' })
  const getAll = vi.spyOn(IDBIndex.prototype, 'getAll')
  try {
    const { seen } = watch(db.live('s', { index: 'byUser', query: 'u1' }))
    await until(() => expect(seen).toEqual([['a']]))
    expect(getAll).toHaveBeenCalledTimes(1)
    // Outside the query's index value: the query reads again, finds the same keys and _ts.
    await db.put('s', { id: 'b', user: 'u2' })
    await until(() => expect(getAll).toHaveBeenCalledTimes(2))
    // That reading started before this write was issued, so it cannot see it; readings never
    // overlap, so its emission, had it made one, would come before the next one.
    await db.put('s', { id: 'c', user: 'u1' })
    await until(() => expect(seen.at(-1)).toEqual(['a', 'c']))
    expect(seen).toEqual([['a'], ['a', 'c']])
  } finally {
    getAll.mockRestore()
  }
})

test('a rewrite within the same second, with the same _ts, is a change', async () => {
  const { db } = await opened()
  await db.put('s', { id: 'a', n: 1 })
  const items: Item[][] = []
  offs.push(db.live('s').subscribe((got: Item[]) => items.push(got)))
  await until(() => expect(items).toHaveLength(1))
  await db.put('s', { id: 'a', n: 2 })
  await until(() => expect(items).toHaveLength(2))
  expect(items[1][0]).toMatchObject({ n: 2, _ts: items[0][0]._ts })
})

test('a burst of changes is read at most twice: once for the first, once for all heard meanwhile', async () => {
  const { db } = await opened()
  const getAll = vi.spyOn(IDBObjectStore.prototype, 'getAll')
  try {
    const { seen } = watch(db.live('s'))
    await until(() => expect(seen).toEqual([[]]))
    const ids = Array.from({ length: 20 }, (_, i) => `k${String(i).padStart(2, '0')}`)
    await Promise.all(ids.map((id) => db.put('s', { id })))
    await until(() => expect(seen.at(-1)).toEqual(ids))
    expect(getAll.mock.calls.length).toBeLessThanOrEqual(3)
    expect(seen.length).toBeLessThanOrEqual(3)
  } finally {
    getAll.mockRestore()
  }
})

test('emits at the instant the first item of the result expires, by the injected clock, not before', async () => {
  // The timer's delay is read from the handle's clock, and when it fires it asks the clock again.
  // The test takes the timers the live query sets (captureExpiryTimers) instead of letting them
  // run: it checks each delay, moves the injected clock, then runs the timer itself. No sleep, no
  // global fake timers (they would stop fake-indexeddb too).
  const timers = captureExpiryTimers()
  try {
    const { clock, db } = await opened()
    await db.putAll('s', [{ id: 'a', user: 'u1', ttl: 5 }, { id: 'b', user: 'u1', ttl: 8 }, { id: 'x', user: 'u2', ttl: 2 }])
    const { seen } = watch(db.live('s', { index: 'byUser', query: 'u1' }))
    await until(() => expect(seen).toEqual([['a', 'b']]))
    // The first expiry among the result's items (not 'x', outside it).
    await until(() => expect(timers.pending.map((t) => t.delay)).toEqual([5_000]))
    clock.advance(4_999)
    timers.fire()
    expect(timers.pending.map((t) => t.delay)).toEqual([1])
    clock.advance(1)
    timers.fire()
    await until(() => expect(seen).toEqual([['a', 'b'], ['b']]))
    await until(() => expect(timers.pending.map((t) => t.delay)).toEqual([3_000]))
    clock.advance(3_000)
    timers.fire()
    await until(() => expect(seen).toEqual([['a', 'b'], ['b'], []]))
    expect(timers.pending).toEqual([])
  } finally {
    timers.restore()
  }
})

test('the timer follows the settings in force: a new default moves it', async () => {
  const timers = captureExpiryTimers()
  try {
    const { clock, db } = await opened()
    await db.put('s', { id: 'a' })
    const { seen } = watch(db.live('s'))
    await until(() => expect(timers.pending.map((t) => t.delay)).toEqual([3_600_000]))
    clock.advance(1_000)
    await db.setDefaultTtl('s', 10)
    await until(() => expect(timers.pending.map((t) => t.delay)).toEqual([9_000]))
    clock.advance(9_000)
    timers.fire()
    await until(() => expect(seen).toEqual([['a'], []]))
  } finally {
    timers.restore()
  }
})

test('as an async iterator: the first result, then each change; breaking out unsubscribes', async () => {
  const { db } = await opened()
  await db.put('s', { id: 'a' })
  const seen: string[][] = []
  for await (const items of db.live('s') as AsyncIterable<Item[]>) {
    seen.push(items.map((item) => item.id))
    if (seen.length === 1) await db.put('s', { id: 'b' })
    else break
  }
  expect(seen).toEqual([['a'], ['a', 'b']])
})

test('an observer gets next, then error for an unknown index (and the subscription ends); an unknown store or option name throws at once', async () => {
  const { db } = await opened()
  expect(() => db.live('nope')).toThrow(expect.objectContaining({ name: 'TtlError', code: 'UNKNOWN_STORE' }))
  expect(() => db.live('s', { count: -1 })).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
  // A misspelt option would otherwise make a primary-key query for 'u1' that emits [] for ever.
  expect(() => db.live('s', { indx: 'byUser', query: 'u1' } as never)).toThrow(
    expect.objectContaining({ name: 'TtlError', code: 'INVALID_OPTION', message: expect.stringMatching(/db\.live\("s"\).*"indx".*did you mean index\?/) }),
  )
  const errors: unknown[] = []
  const next = vi.fn()
  db.live('s', { index: 'nope' }).subscribe({ next, error: (error) => errors.push(error) })
  await until(() => expect(errors).toHaveLength(1))
  expect(errors[0]).toMatchObject({ name: 'TtlError', code: 'UNKNOWN_INDEX' })
  expect(next).not.toHaveBeenCalled()
})

test('RxJS from(): an interop observable whose subscribe(subscriber) returns a teardown', async () => {
  const { db } = await opened()
  await db.put('s', { id: 'a' })
  const live = db.live('s')
  // What rxjs's fromInteropObservable does: obj['@@observable']() (or [Symbol.observable]), then subscribe.
  const interop = live['@@observable']()
  const got: string[][] = []
  const teardown = interop.subscribe({ next: (items: Item[]) => got.push(items.map((i) => i.id)), error: () => {}, complete: () => {} })
  await until(() => expect(got).toEqual([['a']]))
  expect(typeof teardown).toBe('function')
  expect(typeof teardown.unsubscribe).toBe('function')
  teardown.unsubscribe()
})

test('useSyncExternalStore: getSnapshot keeps its array until the result changes; subscribe and getSnapshot work unbound', async () => {
  const { db } = await opened()
  await db.put('s', { id: 'a', user: 'u1' })
  const { subscribe, getSnapshot } = db.live('s', { index: 'byUser', query: 'u1' })
  expect(getSnapshot()).toBeUndefined()
  let changes = 0
  const off = subscribe(() => changes++)
  await until(() => expect(changes).toBe(1))
  const first = getSnapshot()
  expect(first?.map((i: Item) => i.id)).toEqual(['a'])
  await db.put('s', { id: 'b', user: 'u2' })
  await db.put('s', { id: 'c', user: 'u1' })
  await until(() => expect(changes).toBe(2))
  const second = getSnapshot()
  expect(second).not.toBe(first)
  expect(second?.map((i: Item) => i.id)).toEqual(['a', 'c'])
  expect(getSnapshot()).toBe(second)
  // A second subscriber of a query already running gets the result it holds, synchronously.
  let held: unknown
  const again = subscribe((items) => (held = items))
  expect(held).toBe(second)
  again()
  off()
})

test('after close(), live queries complete, iterators end, and db.live throws CLOSED', async () => {
  const { db } = await opened()
  const live = db.live('s')
  const complete = vi.fn()
  const seen: unknown[] = []
  live.subscribe({ next: (items) => seen.push(items), complete })
  await until(() => expect(seen).toHaveLength(1))
  const iterator = db.live('s')[Symbol.asyncIterator]()
  await iterator.next()
  const ended = iterator.next()
  db.close()
  expect(complete).toHaveBeenCalledTimes(1)
  await expect(ended).resolves.toEqual({ value: undefined, done: true })
  expect(() => db.live('s')).toThrow(expect.objectContaining({ code: 'CLOSED' }))
  const late = vi.fn()
  live.subscribe({ complete: late })
  expect(late).toHaveBeenCalledTimes(1)
})

test('a change through another handle of the database in this realm reaches the query', async () => {
  const clock = manualClock()
  const first = await freshDB({ clock, stores })
  const second = await freshDB({ clock, stores }, first.raw.name)
  const { seen } = watch(first.live('s'))
  await until(() => expect(seen).toEqual([[]]))
  await second.put('s', { id: 'a' })
  await until(() => expect(seen).toEqual([[], ['a']]))
})

test.each([
  ['an hour', 3600],
  ['-1 (never)', -1],
])('a default lowered by a handle that opens with another declaration (old default %s) reaches the query at once', async (_, old) => {
  const clock = manualClock()
  const declared = (defaultTtl: number) => ({ s: { ...stores.s, defaultTtl } })
  const first = await freshDB({ clock, stores: declared(old) })
  await first.putAll('s', [{ id: 'inherits' }, { id: 'own', ttl: 600 }])
  const { seen } = watch(first.live('s'))
  await until(() => expect(seen).toEqual([['inherits', 'own']]))
  clock.advance(60_000)
  // A newer app version (another tab, in the browser tests) declares a default of 10 s.
  const newer = await freshDB({ clock, stores: declared(10) }, first.raw.name)
  expect(await newer.getDefaultTtl('s')).toBe(10)
  await until(() => expect(seen).toEqual([['inherits', 'own'], ['own']]))
  expect(seen.at(-1)).toEqual((await first.getAll('s')).map((item) => item.id))
})
