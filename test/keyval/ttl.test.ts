/**
 * SPEC §14: idb-ttl/keyval's time to live. An entry's lifetime is its own `ttl` (a third argument
 * that is an object), else its store's `defaultTtl`, counted from its last write by the shared
 * resolver's rules (§1, §2, §4); it is invisible to every call from the instant it expires.
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { createStore, del, entries, get, getMany, keys, set, setMany, update, values } from '../../src/keyval.js'
import { expectTtlError, SECOND, T0 } from '../semantics/support.js'
import { fresh, onDisk } from './support.js'

// The purge never runs here (its idle callbacks are swallowed): reads hide what expired by themselves.
beforeEach(() => void vi.stubGlobal('requestIdleCallback', () => 0))
afterEach(() => void vi.unstubAllGlobals())

describe('expiry at the instant', () => {
  test('an entry with ttl 10 is there at 9.999 s and gone for every call at 10 s', async () => {
    const { store, clock } = fresh()
    await set('a', 'A', { ttl: 10, store })
    await set('b', 'B', store)
    clock.set(T0 + 10 * SECOND - 1)
    expect(await get('a', store)).toBe('A')
    expect(await entries(store)).toEqual([
      ['a', 'A'],
      ['b', 'B'],
    ])
    clock.set(T0 + 10 * SECOND)
    expect(await get('a', store)).toBeUndefined()
    expect(await getMany(['a', 'b'], store)).toEqual([undefined, 'B'])
    expect(await keys(store)).toEqual(['b'])
    expect(await values(store)).toEqual(['B'])
    expect(await entries(store)).toEqual([['b', 'B']])
    const seen: unknown[] = []
    await update('a', (old) => (seen.push(old), 'new'), store)
    expect(seen).toEqual([undefined])
    expect(await get('a', store)).toBe('new')
  })

  test('_ts is whole seconds, as in Cosmos DB: written at 0.9 s with ttl 2, it lives until 2 s', async () => {
    const { store, clock } = fresh()
    clock.set(T0 + 900)
    await set('a', 'A', { ttl: 2, store })
    clock.set(T0 + 2 * SECOND - 1)
    expect(await get('a', store)).toBe('A')
    clock.set(T0 + 2 * SECOND)
    expect(await get('a', store)).toBeUndefined()
  })

  test('every write restarts the countdown: set, setMany and update', async () => {
    const { store, clock } = fresh({ defaultTtl: 10 })
    await setMany([['a', 1], ['b', 1], ['c', 1]], store)
    clock.advance(6 * SECOND)
    await set('a', 2, store)
    await setMany([['b', 2]], store)
    await update('c', (old) => (old ?? 0) + 1, store)
    clock.advance(6 * SECOND)
    expect(await entries(store)).toEqual([['a', 2], ['b', 2], ['c', 2]])
    clock.advance(4 * SECOND)
    expect(await entries(store)).toEqual([])
  })

  test('within a store time never runs backwards: an entry found expired stays so when the clock steps back', async () => {
    const { store, clock } = fresh()
    await set('a', 'A', { ttl: 10, store })
    clock.advance(10 * SECOND)
    expect(await get('a', store)).toBeUndefined()
    clock.advance(-5 * SECOND)
    expect(await get('a', store)).toBeUndefined()
  })

  test('del of an expired entry is a no-op that removes it from the disk, as idb-keyval’s del', async () => {
    const { store, clock, name } = fresh()
    await set('a', 'A', { ttl: 1, store })
    clock.advance(SECOND)
    expect((await onDisk(name)).map(([key]) => key)).toEqual(['a'])
    await del('a', store)
    expect(await onDisk(name)).toEqual([])
  })
})

describe('the ttl option and the store default', () => {
  test('an entry without ttl inherits the store’s defaultTtl; ttl n overrides it; ttl -1 never expires; null inherits', async () => {
    const { store, clock } = fresh({ defaultTtl: 60 })
    await set('inherits', 1, store)
    await set('inherits-null', 1, { ttl: null, store })
    await set('ten', 1, { ttl: 10, store })
    await set('longer', 1, { ttl: 600, store })
    await set('never', 1, { ttl: -1, store })
    clock.advance(10 * SECOND)
    expect(await keys(store)).toEqual(['inherits', 'inherits-null', 'longer', 'never'])
    clock.advance(50 * SECOND)
    expect(await keys(store)).toEqual(['longer', 'never'])
    clock.advance(540 * SECOND)
    expect(await keys(store)).toEqual(['never'])
    clock.advance(1e9 * SECOND)
    expect(await keys(store)).toEqual(['never'])
  })

  test('a store without defaultTtl keeps entries forever, unless written with a ttl (the default store too)', async () => {
    const { store, clock } = fresh()
    await set('forever', 1, store)
    await set('ttl', 1, { ttl: 5, store })
    clock.advance(5 * SECOND)
    expect(await keys(store)).toEqual(['forever'])
    // The default store ('keyval-store'/'keyval', idb-keyval's), with Date.now: a ttl is honoured there too.
    await set('keyval-ttl-test', 'x', { ttl: 900 })
    expect(await get('keyval-ttl-test')).toBe('x')
    await del('keyval-ttl-test')
  })

  test('defaultTtl null turns time to live off for the store: a ttl is checked, then ignored (SPEC §1)', async () => {
    const { store, clock } = fresh({ defaultTtl: null })
    await set('a', 1, { ttl: 5, store })
    clock.advance(1e6 * SECOND)
    expect(await get('a', store)).toBe(1)
    await expectTtlError(set('b', 1, { ttl: 0, store }), 'INVALID_TTL')
  })

  test('setMany and update take options too: { ttl, store }', async () => {
    const { store, clock } = fresh()
    await setMany([['a', 1], ['b', 2]], { ttl: 5, store })
    await update('c', () => 3, { ttl: 10, store })
    clock.advance(5 * SECOND)
    expect(await entries(store)).toEqual([['c', 3]])
    clock.advance(5 * SECOND)
    expect(await entries(store)).toEqual([])
  })
})

describe('bad values', () => {
  const BAD = [0, -2, -1000, 20.5, NaN, Infinity, 2147483648, '10', true, {}]

  test.each(BAD.map((ttl) => [String(ttl), ttl]))('ttl %s: TtlError INVALID_TTL from set, setMany and update, and nothing written', async (_, ttl) => {
    const { store, name } = fresh()
    await set('kept', 'old', store)
    await expectTtlError(set('kept', 'new', { ttl: ttl as number, store }), 'INVALID_TTL')
    await expectTtlError(set('fresh', 'new', { ttl: ttl as number, store }), 'INVALID_TTL')
    await expectTtlError(setMany([['kept', 'new'], ['fresh', 'new']], { ttl: ttl as number, store }), 'INVALID_TTL')
    let called = false
    await expectTtlError(update('kept', () => ((called = true), 'new'), { ttl: ttl as number, store }), 'INVALID_TTL')
    expect(called).toBe(false)
    expect(await onDisk(name)).toEqual([['kept', 'old']])
  })

  test.each(BAD.map((ttl) => [String(ttl), ttl]))('defaultTtl %s: createStore throws TtlError INVALID_TTL naming the store', (_, defaultTtl) => {
    expect(() => createStore('never-opened', 'cache', { defaultTtl: defaultTtl as number })).toThrow(
      expect.objectContaining({ name: 'TtlError', code: 'INVALID_TTL', message: expect.stringContaining('store "cache"') }),
    )
  })

  test('the largest ttl, 2147483647, is valid', async () => {
    const { store } = fresh({ defaultTtl: 2147483647 })
    await set('a', 1, { ttl: 2147483647, store })
    expect(await get('a', store)).toBe(1)
  })
})
