/**
 * SPEC §1's matrix (store `defaultTtl` × item `ttl`) and §2's expiry instant, cell by cell,
 * through every read of the handle and through the pure resolver.
 */
import { describe, expect, test } from 'vitest'
import { expiresAt, isExpired, MAX_TTL, type DefaultTtl, type StoreConfig } from '../../src/index.js'
import { freshDB, manualClock } from '../helpers.js'
import { SECOND, T0 } from './support.js'

const N = 10 // store default, seconds
const M_SHORT = 4 // item ttl shorter than the default
const M_LONG = 30 // item ttl longer than the default: the item's own ttl still wins

type Column = { label: string; defaultTtl: DefaultTtl | 'absent' }
type Row = { label: string; ttl: number | null | 'absent' }

const columns: Column[] = [
  { label: 'default absent', defaultTtl: 'absent' },
  { label: 'default null', defaultTtl: null },
  { label: 'default -1', defaultTtl: -1 },
  { label: `default ${N}`, defaultTtl: N },
]
const rows: Row[] = [
  { label: 'ttl absent', ttl: 'absent' },
  { label: 'ttl null', ttl: null },
  { label: 'ttl -1', ttl: -1 },
  { label: `ttl ${M_SHORT}`, ttl: M_SHORT },
  { label: `ttl ${M_LONG}`, ttl: M_LONG },
]

/** SPEC §1, written out: lifetime in seconds, or null for "never expires". [row][column] */
const MATRIX: (number | null)[][] = [
  //  absent null  -1      n
  [null, null, null, N], // ttl absent
  [null, null, null, N], // ttl null
  [null, null, null, null], // ttl -1
  [null, null, M_SHORT, M_SHORT], // ttl m (short)
  [null, null, M_LONG, M_LONG], // ttl m (long)
]

interface Cell {
  name: string
  column: Column
  row: Row
  lifetime: number | null
  /** ms after T0 at which the item is written: on a whole second, or 700 ms past one */
  writeOffset: number
}

const cells: Cell[] = rows.flatMap((row, r) =>
  columns.flatMap((column, c) =>
    [0, 700].map((writeOffset) => ({
      name: `${row.label} × ${column.label}, written at +${writeOffset} ms`,
      column,
      row,
      lifetime: MATRIX[r][c],
      writeOffset,
    })),
  ),
)

function storeConfig(column: Column): StoreConfig {
  const config: StoreConfig = { keyPath: 'id', indexes: { byUser: { keyPath: 'user' } } }
  if (column.defaultTtl !== 'absent') config.defaultTtl = column.defaultTtl
  return config
}

function itemOf(row: Row): Record<string, unknown> {
  const item: Record<string, unknown> = { id: 'a', user: 'u1', payload: 'subject' }
  if (row.ttl !== 'absent') item.ttl = row.ttl
  return item
}

/**
 * What every read says about the subject 'a' (index value 'u1') next to a control 'z' (index
 * value 'u2', ttl -1: never expires in any column). 'a' sorts first by key and by index, so a
 * dead 'a' must not take the only place of a `count = 1` read.
 */
async function observe(db: Awaited<ReturnType<typeof freshDB>>) {
  const ids = (values: { id?: unknown }[]) => values.map((v) => v.id)
  const iterated = async (pageSize: number) => {
    const seen: unknown[] = []
    for await (const value of db.iterate('s', null, pageSize)) seen.push(value.id)
    return seen
  }
  return {
    iterate: await iterated(100),
    iteratePageOfOne: await iterated(1),
    get: (await db.get('s', 'a'))?.payload,
    getRange: (await db.get('s', IDBKeyRange.lowerBound('a')))?.id,
    getAll: ids(await db.getAll('s')),
    getAllFirst: ids(await db.getAll('s', null, 1)),
    getAllKeys: await db.getAllKeys('s'),
    getAllKeysFirst: await db.getAllKeys('s', null, 1),
    count: await db.count('s'),
    countKey: await db.count('s', 'a'),
    countOther: await db.count('s', 'z'),
    countRange: await db.count('s', IDBKeyRange.lowerBound('b')),
    getFromIndex: (await db.getFromIndex('s', 'byUser', 'u1'))?.id,
    getFromIndexRange: (await db.getFromIndex('s', 'byUser', IDBKeyRange.lowerBound('u1')))?.id,
    getAllFromIndex: ids(await db.getAllFromIndex('s', 'byUser')),
    getAllFromIndexFirst: ids(await db.getAllFromIndex('s', 'byUser', null, 1)),
    getAllKeysFromIndex: await db.getAllKeysFromIndex('s', 'byUser'),
    getAllKeysFromIndexFirst: await db.getAllKeysFromIndex('s', 'byUser', null, 1),
    getAllFromIndexKey: ids(await db.getAllFromIndex('s', 'byUser', 'u1')),
    countFromIndex: await db.countFromIndex('s', 'byUser'),
    countFromIndexKey: await db.countFromIndex('s', 'byUser', 'u1'),
  }
}

const VISIBLE = {
  iterate: ['a', 'z'],
  iteratePageOfOne: ['a', 'z'],
  get: 'subject',
  getRange: 'a',
  getAll: ['a', 'z'],
  getAllFirst: ['a'],
  getAllKeys: ['a', 'z'],
  getAllKeysFirst: ['a'],
  count: 2,
  countKey: 1,
  countOther: 1,
  countRange: 1,
  getFromIndex: 'a',
  getFromIndexRange: 'a',
  getAllFromIndex: ['a', 'z'],
  getAllFromIndexFirst: ['a'],
  getAllKeysFromIndex: ['a', 'z'],
  getAllKeysFromIndexFirst: ['a'],
  getAllFromIndexKey: ['a'],
  countFromIndex: 2,
  countFromIndexKey: 1,
}

const GONE = {
  iterate: ['z'],
  iteratePageOfOne: ['z'],
  get: undefined,
  getRange: 'z',
  getAll: ['z'],
  getAllFirst: ['z'],
  getAllKeys: ['z'],
  getAllKeysFirst: ['z'],
  count: 1,
  countKey: 0,
  countOther: 1,
  countRange: 1,
  getFromIndex: undefined,
  getFromIndexRange: 'z',
  getAllFromIndex: ['z'],
  getAllFromIndexFirst: ['z'],
  getAllKeysFromIndex: ['z'],
  getAllKeysFromIndexFirst: ['z'],
  getAllFromIndexKey: [],
  countFromIndex: 1,
  countFromIndexKey: 0,
}

/** Far beyond any lifetime the store could give: MAX_TTL seconds and a year more. */
const FAR_FUTURE = T0 + (MAX_TTL + 365 * 86_400) * SECOND

describe('SPEC §1 matrix through the store', () => {
  test.for(cells)('$name', async ({ column, row, lifetime, writeOffset }) => {
    const clock = manualClock(T0)
    const db = await freshDB({ clock, stores: { s: storeConfig(column) } })
    await db.put('s', { id: 'z', user: 'u2', ttl: -1 })
    clock.set(T0 + writeOffset)
    await db.put('s', itemOf(row))
    // _ts is whole seconds: the write at +700 ms is stamped with the second it fell in.
    const ts = (await db.get('s', 'a'))!._ts
    expect(ts).toBe(T0 / SECOND)

    expect(await observe(db)).toEqual(VISIBLE)
    if (lifetime === null) {
      clock.set(T0 + (MAX_TTL + 1) * SECOND)
      expect(await observe(db)).toEqual(VISIBLE)
      clock.set(FAR_FUTURE)
      expect(await observe(db)).toEqual(VISIBLE)
      return
    }
    const expiry = (ts + lifetime) * SECOND
    clock.set(expiry - 1)
    expect(await observe(db)).toEqual(VISIBLE)
    clock.set(expiry)
    expect(await observe(db)).toEqual(GONE)
    clock.set(FAR_FUTURE)
    expect(await observe(db)).toEqual(GONE)
    // Still on disk until a purge: hiding needs no background work (SPEC §2).
    expect(await db.raw.count('s')).toBe(2)
  })
})

describe('SPEC §1 matrix through the pure resolver', () => {
  test.for(cells.filter((cell) => cell.writeOffset === 0))('$name', ({ column, row, lifetime }) => {
    const ts = T0 / SECOND
    const item = { ...itemOf(row), _ts: ts }
    // The resolver takes the store default as a value; an absent default is null.
    const defaultTtl = column.defaultTtl === 'absent' ? null : column.defaultTtl
    if (lifetime === null) {
      expect(expiresAt(item, defaultTtl)).toBe(Infinity)
      expect(isExpired(item, defaultTtl, T0)).toBe(false)
      expect(isExpired(item, defaultTtl, FAR_FUTURE)).toBe(false)
      return
    }
    const expiry = (ts + lifetime) * SECOND
    expect(expiresAt(item, defaultTtl)).toBe(expiry)
    expect(isExpired(item, defaultTtl, T0)).toBe(false)
    expect(isExpired(item, defaultTtl, expiry - 1)).toBe(false)
    expect(isExpired(item, defaultTtl, expiry - 0.001)).toBe(false)
    expect(isExpired(item, defaultTtl, expiry)).toBe(true)
    expect(isExpired(item, defaultTtl, FAR_FUTURE)).toBe(true)
  })
})

describe('_ts is whole seconds: an item with ttl n lives between n-1 and n seconds (SPEC §2)', () => {
  const cases = [
    { how: 'own ttl', store: { keyPath: 'id', defaultTtl: -1 }, item: { id: 'a', ttl: N } },
    { how: 'inherited default', store: { keyPath: 'id', defaultTtl: N }, item: { id: 'a' } },
  ]
  test.for(cases.flatMap((c) => [1, 300, 999].map((ms) => ({ ...c, ms }))))(
    '$how, written $ms ms past a whole second',
    async ({ store, item, ms }) => {
      const clock = manualClock(T0)
      const db = await freshDB({ clock, stores: { s: store } })
      const writtenAt = T0 + 5 * SECOND + ms
      clock.set(writtenAt)
      await db.put('s', item)
      expect((await db.get('s', 'a'))!._ts).toBe(Math.floor(writtenAt / SECOND))

      // The lifetime measured from the write: the last visible and the first invisible instant.
      clock.set(writtenAt + (N - 1) * SECOND - 1)
      expect(await db.get('s', 'a')).toBeDefined()
      clock.set(writtenAt + N * SECOND - ms - 1)
      expect(await db.get('s', 'a')).toBeDefined()
      expect(await db.count('s')).toBe(1)
      // Gone after N*1000 - ms milliseconds: at least N-1 seconds, less than N.
      clock.set(writtenAt + N * SECOND - ms)
      expect(await db.get('s', 'a')).toBeUndefined()
      expect(await db.count('s')).toBe(0)
    },
  )

  test('a fractional clock: expired exactly when now >= _ts + ttl, not a microsecond later', async () => {
    const clock = manualClock(T0 + 0.25)
    const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3 } } })
    await db.put('s', { id: 'a' })
    await db.put('s', { id: 'b', ttl: 2 })
    clock.set(T0 + 2 * SECOND - 0.001)
    expect(await db.getAllKeys('s')).toEqual(['a', 'b'])
    clock.set(T0 + 2 * SECOND)
    expect(await db.getAllKeys('s')).toEqual(['a'])
    clock.set(T0 + 3 * SECOND - 0.001)
    expect(await db.getAllKeys('s')).toEqual(['a'])
    clock.set(T0 + 3 * SECOND)
    expect(await db.getAllKeys('s')).toEqual([])
  })
})

describe('index reads when a dead and a live item share an index key (SPEC §2)', () => {
  test('the live one is found, counted and listed; the dead one nowhere', async () => {
    const clock = manualClock(T0)
    const db = await freshDB({
      clock,
      stores: {
        s: {
          keyPath: 'id',
          defaultTtl: 10,
          indexes: { byUser: { keyPath: 'user' }, byTag: { keyPath: 'tags', multiEntry: true } },
        },
      },
    })
    await db.putAll('s', [
      { id: 'a', user: 'u', tags: ['x', 'y'], ttl: 2 },
      { id: 'b', user: 'u', tags: ['x'] },
      { id: 'c', user: 'u', tags: ['y'], ttl: 3 },
    ])
    clock.set(T0 + 2 * SECOND)
    expect((await db.getFromIndex('s', 'byUser', 'u'))?.id).toBe('b')
    expect((await db.getAllFromIndex('s', 'byUser', 'u', 1)).map((v) => v.id)).toEqual(['b'])
    expect(await db.getAllKeysFromIndex('s', 'byUser', 'u', 1)).toEqual(['b'])
    expect(await db.countFromIndex('s', 'byUser', 'u')).toBe(2)
    expect(await db.countFromIndex('s', 'byTag')).toBe(2) // b:x, c:y
    expect(await db.countFromIndex('s', 'byTag', 'x')).toBe(1)
    expect((await db.getAllFromIndex('s', 'byTag', 'y')).map((v) => v.id)).toEqual(['c'])
    clock.set(T0 + 3 * SECOND)
    expect(await db.getFromIndex('s', 'byTag', 'y')).toBeUndefined()
    expect(await db.countFromIndex('s', 'byTag')).toBe(1)
    expect(await db.getAllKeysFromIndex('s', 'byUser')).toEqual(['b'])
  })
})
