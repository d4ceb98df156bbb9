/**
 * SPEC §4: which `defaultTtl` and item `ttl` values are valid, what strict and lenient mode do
 * with the others, and how other bad input is refused without a partial write.
 */
import { describe, expect, test } from 'vitest'
import { MAX_TTL, openTtlDB, type DefaultTtl, type TtlDB, type TtlValues } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import {
  databaseExists,
  deleteAfter,
  expectDomError,
  expectTtlError,
  rawAll,
  rawGet,
  rawMeta,
  SECOND,
  T0,
} from './support.js'

/** Marks "no `ttl` field at all" in the tables below. */
const ABSENT: unique symbol = Symbol('absent')
type TtlInput = unknown

/** The store default used where an item inherits. */
const D = 100
const FAR_FUTURE = T0 + (MAX_TTL + 86_400) * SECOND

function withTtl(base: Record<string, unknown>, ttl: TtlInput): Record<string, unknown> {
  return ttl === ABSENT ? { ...base } : { ...base, ttl }
}

const label = (value: unknown): string =>
  value === ABSENT
    ? 'absent'
    : typeof value === 'bigint'
      ? `${value}n`
      : typeof value === 'string'
        ? JSON.stringify(value)
        : Array.isArray(value)
          ? '[]'
          : typeof value === 'object' && value !== null
            ? '{}'
            : Object.is(value, 20.0)
              ? '20.0'
              : Object.is(value, -0)
                ? '-0'
                : String(value)

/** Valid item ttls and the lifetime each gives under store default D (null: never expires). */
const VALID_ITEM: { name: string; ttl: TtlInput; life: number | null }[] = [
  { ttl: 1, life: 1 },
  { ttl: 20.0, life: 20 },
  { ttl: -1, life: null },
  { ttl: MAX_TTL, life: MAX_TTL },
  { ttl: null, life: D },
  { ttl: ABSENT, life: D },
].map((c) => ({ ...c, name: label(c.ttl) }))

/** Invalid in both roles and both modes (bigints: see LENIENT_BIGINT). */
const INVALID: { name: string; value: unknown }[] = [
  0,
  -0,
  -2,
  -1000,
  20.5,
  NaN,
  Infinity,
  -Infinity,
  2147483648,
  '10',
  true,
  {},
  [],
].map((value) => ({ name: label(value), value }))

/** Strict mode and any `defaultTtl` refuse every bigint; lenient item ttls read those that fit. */
const BIGINTS: { name: string; value: bigint; lenientLife: number | null }[] = [
  { value: 5n, lenientLife: 5 },
  { value: -1n, lenientLife: null },
  { value: 2147483647n, lenientLife: MAX_TTL },
  { value: 0n, lenientLife: D },
  { value: -2n, lenientLife: D },
  { value: 2147483648n, lenientLife: D },
].map((c) => ({ ...c, name: label(c.value) }))

type DB = TtlDB<any>

/**
 * The four ways to write an item's `ttl`. Each writes key 'b' at T0 + 1 s; `update` first needs
 * an item 'b' (written at T0 with no ttl). `putAll` writes a valid 'c' in the same call, which
 * must share the fate of 'b'.
 */
const WRITES: { op: string; seed: boolean; write: (db: DB, item: Record<string, unknown>) => Promise<unknown> }[] = [
  { op: 'put', seed: false, write: (db, item) => db.put('s', item) },
  { op: 'add', seed: false, write: (db, item) => db.add('s', item) },
  { op: 'putAll', seed: false, write: (db, item) => db.putAll('s', [{ id: 'c', ttl: 5 }, item]) },
  { op: 'update', seed: true, write: (db, item) => db.update('s', 'b', item) },
]

/** A store with default D, a bystander 'a', and (for update) the item 'b'; the clock at T0 + 1 s. */
async function setup(mode: TtlValues, seed: boolean) {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, ttlValues: mode, stores: { s: { keyPath: 'id', defaultTtl: D } } })
  await db.put('s', { id: 'a', v: 'bystander' })
  if (seed) await db.put('s', { id: 'b', v: 0 })
  clock.set(T0 + SECOND)
  return { clock, db }
}

/** Checks the item at 'b' is visible just before `life` seconds after T0 + 1 s and gone at it. */
async function expectLifetime(db: DB, clock: ReturnType<typeof manualClock>, life: number | null) {
  const writtenTs = (T0 + SECOND) / SECOND
  expect((await db.get('s', 'b'))?._ts).toBe(writtenTs)
  if (life === null) {
    clock.set(FAR_FUTURE)
    expect(await db.get('s', 'b')).toBeDefined()
    expect(await db.getAllKeys('s')).toContain('b')
    return
  }
  clock.set((writtenTs + life) * SECOND - 1)
  expect(await db.get('s', 'b')).toBeDefined()
  expect(await db.getAllKeys('s')).toContain('b')
  clock.set((writtenTs + life) * SECOND)
  expect(await db.get('s', 'b')).toBeUndefined()
  expect(await db.getAllKeys('s')).not.toContain('b')
}

describe.each(['strict', 'lenient'] as const)('valid item ttl in %s mode', (mode) => {
  test.for(WRITES.flatMap((w) => VALID_ITEM.map((v) => ({ ...w, ...v }))))(
    '$op with ttl $name is stored as given and counts',
    async ({ seed, write, ttl, life }) => {
      const { clock, db } = await setup(mode, seed)
      await write(db, withTtl({ id: 'b', v: 1 }, ttl))
      const stored = await rawGet(db, 's', 'b')
      expect(stored?.v).toBe(1)
      if (ttl === ABSENT) expect(stored).not.toHaveProperty('ttl')
      else expect(stored?.ttl).toBe(ttl)
      await expectLifetime(db, clock, life)
    },
  )
})

describe('invalid item ttl in strict mode: TtlError INVALID_TTL, nothing written', () => {
  const values = [...INVALID, ...BIGINTS]
  test.for(WRITES.flatMap((w) => values.map((v) => ({ ...w, ...v }))))('$op with ttl $name', async ({ seed, write, value }) => {
    const { db } = await setup('strict', seed)
    const before = await rawAll(db, 's')
    await expectTtlError(write(db, { id: 'b', v: 1, ttl: value }), 'INVALID_TTL')
    expect(await rawAll(db, 's')).toEqual(before)
    expect(await db.getAllKeys('s')).toEqual(seed ? ['a', 'b'] : ['a'])
  })
})

describe('invalid item ttl in lenient mode: stored as given, inherits the default', () => {
  test.for(WRITES.flatMap((w) => INVALID.map((v) => ({ ...w, ...v }))))('$op with ttl $name', async ({ seed, write, value }) => {
    const { clock, db } = await setup('lenient', seed)
    await write(db, { id: 'b', v: 1, ttl: value })
    const stored = await rawGet(db, 's', 'b')
    expect(stored?.v).toBe(1)
    expect(stored).toHaveProperty('ttl')
    expect(stored!.ttl).toEqual(value)
    expect((await db.get('s', 'b'))?.ttl).toEqual(value)
    await expectLifetime(db, clock, D)
  })

  test.for(INVALID)('ttl $name under default -1 never expires (it inherits -1)', async ({ value }) => {
    const clock = manualClock(T0)
    const db = await freshDB({ clock, ttlValues: 'lenient', stores: { s: { keyPath: 'id', defaultTtl: -1 } } })
    await db.put('s', { id: 'b', ttl: value })
    clock.set(FAR_FUTURE)
    expect(await db.get('s', 'b')).toBeDefined()
    expect(await db.count('s')).toBe(1)
  })

  test.for(WRITES.flatMap((w) => BIGINTS.map((v) => ({ ...w, ...v }))))(
    '$op with bigint ttl $name counts as the integer when it fits',
    async ({ seed, write, value, lenientLife }) => {
      const { clock, db } = await setup('lenient', seed)
      await write(db, { id: 'b', v: 1, ttl: value })
      expect((await rawGet(db, 's', 'b'))?.ttl).toBe(value)
      await expectLifetime(db, clock, lenientLife)
    },
  )
})

/** Valid store defaults and the lifetime an inheriting item gets (null: never expires). */
type DefaultCase = { value: DefaultTtl | typeof ABSENT; life: number | null }
const VALID_DEFAULTS: (DefaultCase & { name: string })[] = (
  [
    { value: 1, life: 1 },
    { value: 20.0, life: 20 },
    { value: -1, life: null },
    { value: MAX_TTL, life: MAX_TTL },
    { value: null, life: null },
    { value: ABSENT, life: null },
  ] as DefaultCase[]
).map((c) => ({ ...c, name: label(c.value) }))

describe.each(['strict', 'lenient'] as const)('store defaultTtl in %s mode', (mode) => {
  test.for(VALID_DEFAULTS)('declared defaultTtl $name is accepted and applies', async ({ value, life }) => {
    const clock = manualClock(T0 + SECOND)
    const store = value === ABSENT ? { keyPath: 'id' } : { keyPath: 'id', defaultTtl: value }
    const db = await freshDB({ clock, ttlValues: mode, stores: { s: store } })
    expect(await db.getDefaultTtl('s')).toBe(value === ABSENT ? null : value)
    await db.put('s', { id: 'b' })
    await expectLifetime(db, clock, life)
  })

  test.for(VALID_DEFAULTS.filter((c) => c.value !== ABSENT))(
    'setDefaultTtl($name) is accepted and applies',
    async ({ value, life }) => {
      const clock = manualClock(T0 + SECOND)
      const db = await freshDB({ clock, ttlValues: mode, stores: { s: { keyPath: 'id', defaultTtl: 7 } } })
      await db.put('s', { id: 'b' })
      await db.setDefaultTtl('s', value as DefaultTtl)
      expect(await db.getDefaultTtl('s')).toBe(value)
      await expectLifetime(db, clock, life)
    },
  )

  test.for([...INVALID, ...BIGINTS])('setDefaultTtl($name) rejects INVALID_TTL and changes nothing', async ({ value }) => {
    const clock = manualClock(T0 + SECOND)
    const db = await freshDB({ clock, ttlValues: mode, stores: { s: { keyPath: 'id', defaultTtl: D } } })
    await db.put('s', { id: 'b' })
    const meta = await rawMeta(db)
    await expectTtlError(db.setDefaultTtl('s', value as DefaultTtl), 'INVALID_TTL')
    expect(await rawMeta(db)).toEqual(meta)
    expect(await db.getDefaultTtl('s')).toBe(D)
    await expectLifetime(db, clock, D)
  })

  test.for([...INVALID, ...BIGINTS])(
    'openTtlDB declaring defaultTtl $name rejects INVALID_TTL and creates no database',
    async ({ value }) => {
      const name = deleteAfter(uniqueName('bad-default'))
      await expectTtlError(
        openTtlDB(name, {
          version: 1,
          ttlValues: mode,
          purge: { mode: 'off' },
          stores: { ok: { keyPath: 'id', defaultTtl: 5 }, s: { keyPath: 'id', defaultTtl: value as DefaultTtl } },
        }),
        'INVALID_TTL',
      )
      expect(await databaseExists(name)).toBe(false)
    },
  )

  test.for([...INVALID, ...BIGINTS])(
    'reopening an existing database declaring defaultTtl $name rejects and leaves it as it was',
    async ({ value }) => {
      const clock = manualClock(T0 + SECOND)
      const name = uniqueName('bad-redeclare')
      const db = await freshDB({ clock, ttlValues: mode, stores: { s: { keyPath: 'id', defaultTtl: D } } }, name)
      await db.put('s', { id: 'b' })
      const meta = await rawMeta(db)
      await expectTtlError(
        openTtlDB(name, {
          version: 2,
          clock,
          ttlValues: mode,
          purge: { mode: 'off' },
          stores: { s: { keyPath: 'id', defaultTtl: value as DefaultTtl }, extra: { keyPath: 'id' } },
        }),
        'INVALID_TTL',
      )
      const info = (await indexedDB.databases()).find((d) => d.name === name)
      expect(info?.version).toBe(1)
      expect(await rawMeta(db)).toEqual(meta)
      expect(await db.getDefaultTtl('s')).toBe(D)
      await expectLifetime(db, clock, D)
    },
  )
})

describe('other bad input (SPEC §4): a clear error, never a partial write', () => {
  const NON_OBJECTS = [5, 'text', null, undefined, true, 10n, [1, 2], new Date(T0), new Map([['id', 'b']])].map((value) => ({
    name: Object.prototype.toString.call(value),
    value,
  }))

  test.for(NON_OBJECTS)('a value that is $name rejects INVALID_VALUE in put, add, putAll and update', async ({ value }) => {
    const { db } = await setup('strict', true)
    const before = await rawAll(db, 's')
    await expectTtlError(db.put('s', value, 'x'), 'INVALID_VALUE')
    await expectTtlError(db.add('s', value, 'x'), 'INVALID_VALUE')
    await expectTtlError(db.putAll('s', [{ id: 'c' }, value]), 'INVALID_VALUE')
    await expectTtlError(db.update('s', 'b', () => value as unknown as Record<string, unknown>), 'INVALID_VALUE')
    expect(await rawAll(db, 's')).toEqual(before)
  })

  test('a value that is not a plain object is refused in lenient mode too', async () => {
    const { db } = await setup('lenient', false)
    const before = await rawAll(db, 's')
    await expectTtlError(db.put('s', [{ id: 'x' }]), 'INVALID_VALUE')
    await expectTtlError(db.put('s', 'x'), 'INVALID_VALUE')
    expect(await rawAll(db, 's')).toEqual(before)
  })

  const unknownStoreCalls: { op: string; call: (db: DB, store: string) => Promise<unknown> }[] = [
    { op: 'put', call: (db, s) => db.put(s, { id: 'x' }) },
    { op: 'add', call: (db, s) => db.add(s, { id: 'x' }) },
    { op: 'putAll', call: (db, s) => db.putAll(s, [{ id: 'x' }]) },
    { op: 'update', call: (db, s) => db.update(s, 'x', { v: 1 }) },
    { op: 'touch', call: (db, s) => db.touch(s, 'x') },
    { op: 'get', call: (db, s) => db.get(s, 'x') },
    { op: 'getAll', call: (db, s) => db.getAll(s) },
    { op: 'getAllKeys', call: (db, s) => db.getAllKeys(s) },
    { op: 'count', call: (db, s) => db.count(s) },
    { op: 'delete', call: (db, s) => db.delete(s, 'x') },
    { op: 'clear', call: (db, s) => db.clear(s) },
    { op: 'getFromIndex', call: (db, s) => db.getFromIndex(s, 'byV', 1) },
    { op: 'getAllFromIndex', call: (db, s) => db.getAllFromIndex(s, 'byV') },
    { op: 'countFromIndex', call: (db, s) => db.countFromIndex(s, 'byV') },
    { op: 'setDefaultTtl', call: (db, s) => db.setDefaultTtl(s, 10) },
    { op: 'getDefaultTtl', call: (db, s) => db.getDefaultTtl(s) },
    { op: 'purgeExpired', call: (db, s) => db.purgeExpired(s) },
  ]

  test.for(
    unknownStoreCalls.flatMap((c) => [
      { ...c, store: 'nope' },
      // Exists physically but is the library's own, not a declared store.
      { ...c, store: '__idb_ttl_meta' },
      // Exists physically (made by the caller's upgrade) but was not declared.
      { ...c, store: 'plain' },
    ]),
  )('$op on store $store rejects UNKNOWN_STORE', async ({ call, store }) => {
    const clock = manualClock(T0)
    const db = await freshDB({
      clock,
      stores: { s: { keyPath: 'id', defaultTtl: D, indexes: { byV: { keyPath: 'v' } } } },
      upgrade: (raw) => void raw.createObjectStore('plain', { keyPath: 'id' }),
    })
    await db.put('s', { id: 'x', v: 1 })
    const meta = await rawMeta(db)
    await expectTtlError(call(db, store), 'UNKNOWN_STORE')
    expect(await rawMeta(db)).toEqual(meta)
    expect(await db.raw.count('plain')).toBe(0)
    expect(await db.getAllKeys('s')).toEqual(['x'])
  })

  test('a value without the key path rejects with IndexedDB DataError and writes nothing', async () => {
    const { db } = await setup('strict', false)
    const before = await rawAll(db, 's')
    await expectDomError(db.put('s', { v: 1 }), 'DataError')
    await expectDomError(db.add('s', { v: 1 }), 'DataError')
    await expectDomError(db.putAll('s', [{ id: 'c' }, { v: 1 }]), 'DataError')
    expect(await rawAll(db, 's')).toEqual(before)
  })

  test('an out-of-line store without a key and without autoIncrement rejects DataError', async () => {
    const db = await freshDB({ clock: manualClock(T0), stores: { o: { defaultTtl: D } } })
    await expectDomError(db.put('o', { v: 1 }), 'DataError')
    // The message says which store and why: no key given where the store takes out-of-line keys.
    await expect(db.put('o', { v: 1 })).rejects.toThrow(/^store "o": the value has no valid key \(key path none: the store takes out-of-line keys/)
    expect(await db.raw.count('o')).toBe(0)
    await db.put('o', { v: 2 }, 'k')
    expect(await db.get('o', 'k')).toMatchObject({ v: 2 })
  })

  test('autoIncrement and out-of-line keys are stamped and expire like any other', async () => {
    const clock = manualClock(T0)
    const db = await freshDB({
      clock,
      stores: {
        events: { keyPath: 'seq', autoIncrement: true, defaultTtl: 5, indexes: { byUser: { keyPath: 'user' } } },
        o: { defaultTtl: 5 },
      },
    })
    expect(await db.put('events', { user: 'u1' })).toBe(1)
    expect(await db.add('events', { user: 'u2', ttl: -1 })).toBe(2)
    expect(await db.putAll('events', [{ user: 'u1' }])).toEqual([3])
    expect(await db.get('events', 1)).toEqual({ seq: 1, user: 'u1', _ts: T0 / SECOND })
    await db.put('o', { v: 1 }, 'k')
    clock.set(T0 + 3 * SECOND)
    expect(await db.update('o', 'k', { v: 2 })).toEqual({ v: 2, _ts: T0 / SECOND + 3 })
    clock.set(T0 + 5 * SECOND)
    expect(await db.getAllKeys('events')).toEqual([2])
    expect(await db.countFromIndex('events', 'byUser', 'u1')).toBe(0)
    expect(await db.get('o', 'k')).toEqual({ v: 2, _ts: T0 / SECOND + 3 })
    clock.set(T0 + 8 * SECOND)
    expect(await db.get('o', 'k')).toBeUndefined()
    expect(await db.add('o', { v: 3 }, 'k')).toBe('k')
  })

  test('putAll is all or nothing: one bad item in many writes none, and leaves older items as they were', async () => {
    const { clock, db } = await setup('strict', false)
    await db.putAll('s', [
      { id: 'p', v: 0 },
      { id: 'q', v: 0 },
    ])
    clock.advance(5 * SECOND)
    const before = await rawAll(db, 's')
    const batch = (bad: Record<string, unknown>) => [{ id: 'p', v: 1 }, { id: 'n', v: 1 }, bad, { id: 'q', v: 1 }]
    await expectTtlError(db.putAll('s', batch({ id: 'r', ttl: 0 })), 'INVALID_TTL')
    await expectDomError(db.putAll('s', batch({ v: 'no key' })), 'DataError')
    await expectTtlError(db.putAll('s', [...batch({ id: 'r' }), 'not an object']), 'INVALID_VALUE')
    expect(await rawAll(db, 's')).toEqual(before)
    expect(await db.getAllKeys('s')).toEqual(['a', 'p', 'q'])
  })

  test.for([
    { op: 'put', write: (db: DB, v: Record<string, unknown>) => db.put('s', v) },
    { op: 'add', write: (db: DB, v: Record<string, unknown>) => db.add('s', v) },
    { op: 'putAll', write: (db: DB, v: Record<string, unknown>) => db.putAll('s', [v]) },
    { op: 'update', write: (db: DB, v: Record<string, unknown>) => db.update('s', 'b', v) },
  ])('a user-supplied _ts is overwritten by $op', async ({ op, write }) => {
    const clock = manualClock(T0)
    const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
    if (op === 'update') await db.put('s', { id: 'b' })
    clock.set(T0 + 2500)
    // A _ts far in the future would keep the item alive for ever if it were kept.
    await write(db, { id: 'b', _ts: T0 / SECOND + 1_000_000 })
    const now = T0 / SECOND + 2
    expect((await rawGet(db, 's', 'b'))?._ts).toBe(now)
    expect((await db.get('s', 'b'))?._ts).toBe(now)
    clock.set((now + 10) * SECOND)
    expect(await db.get('s', 'b')).toBeUndefined()
  })

  test('a non-numeric user _ts is overwritten too', async () => {
    const clock = manualClock(T0)
    const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
    await db.put('s', { id: 'b', _ts: 'yesterday' })
    expect((await db.get('s', 'b'))?._ts).toBe(T0 / SECOND)
  })
})

describe('error messages name what was wrong and where', () => {
  const stores = { s: { keyPath: 'id', defaultTtl: 10, indexes: { byV: { keyPath: 'v' }, byW: { keyPath: 'w' } } }, t: { keyPath: 'id' } }

  test('UNKNOWN_STORE lists the declared stores', async () => {
    const db = await freshDB({ clock: manualClock(T0), stores })
    await expect(db.get('nope' as never, 1)).rejects.toMatchObject({
      code: 'UNKNOWN_STORE',
      message: '"nope" is not a store declared in openTtlDB (declared: "s", "t")',
    })
  })

  test.for(['getFromIndex', 'getAllFromIndex', 'getAllKeysFromIndex', 'countFromIndex'] as const)(
    '%s with an unknown index rejects UNKNOWN_INDEX naming the index, the store and its indexes',
    async (method) => {
      const db = await freshDB({ clock: manualClock(T0), stores })
      const call = (index: string) => (db[method] as (s: string, i: string, q: unknown) => Promise<unknown>)('s', index, 1)
      await expect(call('byX')).rejects.toMatchObject({
        name: 'TtlError',
        code: 'UNKNOWN_INDEX',
        message: 'store "s" has no index "byX": its indexes are "byV", "byW"',
      })
      await expect(call('$ttl')).rejects.toMatchObject({ code: 'UNKNOWN_INDEX', message: expect.stringContaining(`"$ttl" is the library's own`) })
      await expect((db[method] as (s: string, i: string, q: unknown) => Promise<unknown>)('t', 'byV', 1)).rejects.toMatchObject({
        code: 'UNKNOWN_INDEX',
        message: 'store "t" has no index "byV": it has none',
      })
    },
  )

  test.for(['rows', 'generations'] as const)(
    'a value lacking its key path rejects DataError naming the store, the key path and, in putAll, the item\'s position (DataCloneError too); nothing is written (values in %s)',
    async (layout) => {
      const db = await freshDB({ clock: manualClock(T0), stores: { s: { keyPath: 'id', defaultTtl: 10, evictOnQuota: layout === 'generations' } } })
      await db.put('s', { id: 'a' })
      const before = await rawAll(db, 's')
      await expect(db.putAll('s', [{ id: 1 }, { id: 2 }, { v: 'no key' }])).rejects.toMatchObject({
        name: 'DataError',
        message: expect.stringMatching(/^store "s", item 2: .*key path "id"/),
      })
      await expect(db.put('s', { v: 'no key' })).rejects.toMatchObject({ name: 'DataError', message: expect.stringMatching(/^store "s": .*key path "id"/) })
      await expect(db.putAll('s', [{ id: 1 }, { id: {} }])).rejects.toMatchObject({ name: 'DataError', message: expect.stringMatching(/^store "s", item 1: /) })
      // A value IndexedDB cannot store is named the same way.
      await expect(db.putAll('s', [{ id: 1 }, { id: 2, f: () => 1 }])).rejects.toMatchObject({ name: 'DataCloneError', message: expect.stringMatching(/^store "s", item 1: /) })
      // An update whose function drops the key: the item would move to no key at all.
      await expect(db.update('s', 'a', ({ id: _, ...rest }) => rest)).rejects.toMatchObject({
        name: 'TtlError',
        code: 'INVALID_VALUE',
        message: expect.stringMatching(/^store "s", key "a": /),
      })
      expect(await rawAll(db, 's')).toEqual(before)
    },
  )

  test('NOT_FOUND quotes a string key', async () => {
    const db = await freshDB({ clock: manualClock(T0), stores })
    await expect(db.update('s', '1', { v: 1 })).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'store "s", key "1": no live item to update' })
    await expect(db.touch('s', 1)).rejects.toMatchObject({ code: 'NOT_FOUND', message: 'store "s", key 1: no live item to update' })
  })
})

describe('untyped misuse (what TypeScript would refuse) is a TtlError naming what was wrong; nothing is written', () => {
  test('update with changes that are neither an object nor a function: INVALID_VALUE', async () => {
    const { db } = await setup('strict', true)
    const before = await rawAll(db, 's')
    for (const changes of ['xy', 5, null, ['v'], new Date(T0)]) {
      await expect(db.update('s', 'b', changes as never), `changes ${String(changes)}`).rejects.toMatchObject({
        name: 'TtlError',
        code: 'INVALID_VALUE',
        message: expect.stringMatching(/^store "s", key "b": .*changes/),
      })
    }
    expect(await rawAll(db, 's')).toEqual(before)
  })

  test('setDefaultTtl(store, undefined) is INVALID_TTL naming the store, not TTL turned off', async () => {
    const { db } = await setup('strict', true)
    const meta = await rawMeta(db)
    await expect(db.setDefaultTtl('s', undefined as never)).rejects.toMatchObject({
      name: 'TtlError',
      code: 'INVALID_TTL',
      message: expect.stringMatching(/^store "s": .*got undefined/),
    })
    await expect(db.setDefaultTtl('s', 0)).rejects.toMatchObject({ code: 'INVALID_TTL', message: expect.stringMatching(/^store "s": /) })
    expect(await rawMeta(db)).toEqual(meta)
    expect(await db.getDefaultTtl('s')).toBe(D)
  })

  test('putAll of something that is not an array: INVALID_VALUE', async () => {
    const { db } = await setup('strict', true)
    const before = await rawAll(db, 's')
    for (const values of [{ id: 'x' }, 'ab', 5, null, undefined, new Set([{ id: 'x' }])]) {
      await expect(db.putAll('s', values as never), `putAll(${String(values)})`).rejects.toMatchObject({
        name: 'TtlError',
        code: 'INVALID_VALUE',
        message: expect.stringMatching(/^store "s": putAll takes an array/),
      })
    }
    expect(await rawAll(db, 's')).toEqual(before)
  })

  test('onExpire with a store filter that is not an array of names, or without a function: INVALID_OPTION', async () => {
    const { db } = await setup('strict', true)
    for (const stores of ['s', [1], { s: true }, null]) {
      expect(() => db.onExpire(() => {}, { stores: stores as never }), `stores ${JSON.stringify(stores)}`).toThrow(
        expect.objectContaining({ name: 'TtlError', code: 'INVALID_OPTION', message: expect.stringContaining('onExpire') }),
      )
    }
    expect(() => db.onExpire('listener' as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
    expect(() => db.onExpire(() => {}, 's' as never)).toThrow(expect.objectContaining({ code: 'INVALID_OPTION' }))
  })
})
