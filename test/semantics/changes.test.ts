/**
 * SPEC §3: every change — rewrites, item ttl changes, store default changes, disabling and
 * re-enabling — and the rule that expired stays expired; plus §2's "gone for every operation"
 * for writes, the purge, and the schema work of opening and upgrading.
 */
import { openDB } from 'idb'
import { describe, expect, test, vi } from 'vitest'
import { MAX_TTL, type DefaultTtl, type TtlDB } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import {
  deleteAfter,
  expectDomError,
  expectTtlError,
  rawAll,
  rawGet,
  rawKeys,
  SECOND,
  T0,
} from './support.js'

type DB = TtlDB<any>

const TS0 = T0 / SECOND
/** Epoch ms `s` seconds after T0. */
const at = (s: number) => T0 + s * SECOND
/** Ten years on, in seconds after T0, and as a clock value. */
const FAR_S = 10 * 365 * 86_400
const FAR = at(FAR_S)

/** What the handle shows of a store: live keys, count, and the live keys by index. */
async function view(db: DB, store = 's') {
  return {
    keys: await db.getAllKeys(store),
    count: await db.count(store),
    values: (await db.getAll(store)).map((v) => v.id),
  }
}

function expectView(actual: Awaited<ReturnType<typeof view>>, keys: string[]) {
  expect(actual).toEqual({ keys, count: keys.length, values: keys })
}

async function open(defaultTtl: DefaultTtl, clock = manualClock(T0)) {
  const db = await freshDB({
    clock,
    stores: { s: { keyPath: 'id', defaultTtl, indexes: { byTag: { keyPath: 'tag' } } } },
  })
  return { db, clock }
}

describe('a rewrite restarts the countdown (SPEC §3)', () => {
  /** Each rewrites 'a'; put and putAll replace the whole value, so they are given all of it. */
  const rewrites: { how: string; rewrite: (db: DB, value: Record<string, unknown>) => Promise<unknown> }[] = [
    { how: 'put', rewrite: (db, value) => db.put('s', value) },
    { how: 'putAll', rewrite: (db, value) => db.putAll('s', [value]) },
    { how: 'update', rewrite: (db) => db.update('s', 'a', { v: 2 }) },
    { how: 'touch', rewrite: (db) => db.touch('s', 'a') },
  ]

  test.for(rewrites)('$how of an item inheriting default 10', async ({ rewrite }) => {
    const { db, clock } = await open(10)
    await db.put('s', { id: 'a', v: 1 })
    clock.set(at(8.5))
    await rewrite(db, { id: 'a', v: 2 })
    expect((await rawGet(db, 's', 'a'))?._ts).toBe(TS0 + 8)
    clock.set(at(10))
    expect(await db.get('s', 'a')).toBeDefined()
    clock.set(at(18) - 1)
    expect(await db.get('s', 'a')).toBeDefined()
    clock.set(at(18))
    expect(await db.get('s', 'a')).toBeUndefined()
  })

  test.for(rewrites)('$how of an item with its own ttl 5 restarts that ttl', async ({ rewrite }) => {
    const { db, clock } = await open(100)
    await db.put('s', { id: 'a', v: 1, ttl: 5 })
    clock.set(at(4))
    await rewrite(db, { id: 'a', v: 2, ttl: 5 })
    clock.set(at(9) - 1)
    expect(await db.get('s', 'a')).toMatchObject({ ttl: 5, _ts: TS0 + 4 })
    clock.set(at(9))
    expect(await db.get('s', 'a')).toBeUndefined()
  })
})

describe("changing or removing an item's ttl (SPEC §3)", () => {
  test('a longer ttl written by update counts from the update', async () => {
    const { db, clock } = await open(100)
    await db.put('s', { id: 'a', ttl: 5 })
    clock.set(at(3))
    await db.update('s', 'a', { ttl: 20 })
    clock.set(at(23) - 1)
    expect(await db.get('s', 'a')).toMatchObject({ ttl: 20 })
    clock.set(at(23))
    expect(await db.get('s', 'a')).toBeUndefined()
  })

  test('a shorter ttl written by put can expire the item sooner than the default', async () => {
    const { db, clock } = await open(100)
    await db.put('s', { id: 'a' })
    clock.set(at(3))
    await db.put('s', { id: 'a', ttl: 1 })
    clock.set(at(4) - 1)
    expect(await db.get('s', 'a')).toBeDefined()
    clock.set(at(4))
    expect(await db.get('s', 'a')).toBeUndefined()
    expect(await db.count('s')).toBe(0)
  })

  test.for([
    { how: 'a put without ttl', change: (db: DB) => db.put('s', { id: 'a' }) },
    { how: 'update to ttl null', change: (db: DB) => db.update('s', 'a', { ttl: null }) },
    {
      how: 'update dropping the field',
      change: (db: DB) => db.update('s', 'a', ({ ttl: _dropped, _ts, ...rest }) => rest),
    },
  ])('removing the ttl ($how) brings the default back', async ({ change }) => {
    const { db, clock } = await open(10)
    await db.put('s', { id: 'a', ttl: 50 })
    clock.set(at(2))
    await change(db)
    expect(await rawGet(db, 's', 'a')).not.toMatchObject({ ttl: 50 })
    clock.set(at(12) - 1)
    expect(await db.get('s', 'a')).toBeDefined()
    clock.set(at(12))
    expect(await db.get('s', 'a')).toBeUndefined()
  })

  test('ttl -1 keeps one item forever while the store default is n', async () => {
    const { db, clock } = await open(10)
    await db.putAll('s', [{ id: 'a' }, { id: 'b' }])
    clock.set(at(5))
    await db.update('s', 'a', { ttl: -1 })
    clock.set(FAR)
    expectView(await view(db), ['a'])
  })
})

describe('changing the store default takes effect at once, without rewriting items (SPEC §3)', () => {
  /**
   * Items at T0 under default 10: 'inh' inherits, 'own5' has ttl 5, 'own30' ttl 30, 'never' ttl
   * -1; 'late' inherits and is written at T0 + 6 s. The change happens at T0 + 6 s.
   */
  async function scene(initial: DefaultTtl) {
    const { db, clock } = await open(initial)
    await db.putAll('s', [{ id: 'inh' }, { id: 'never', ttl: -1 }, { id: 'own30', ttl: 30 }, { id: 'own5', ttl: 5 }])
    clock.set(at(6))
    await db.put('s', { id: 'late' })
    const before = await rawAll(db, 's')
    return { db, clock, before }
  }

  /** [seconds after T0, live keys then] after the change at T0 + 6 s. */
  type Timeline = [number, string[]][]
  const cases: { from: DefaultTtl; to: DefaultTtl; timeline: Timeline }[] = [
    {
      from: 10,
      to: 8, // n -> shorter m
      timeline: [
        [6, ['inh', 'late', 'never', 'own30']],
        [8 - 0.001, ['inh', 'late', 'never', 'own30']],
        [8, ['late', 'never', 'own30']],
        [14 - 0.001, ['late', 'never', 'own30']],
        [14, ['never', 'own30']],
        [30, ['never']],
      ],
    },
    {
      from: 10,
      to: 3, // n -> m that has already run out for 'inh' (T0 + 3 <= T0 + 6)
      timeline: [
        [6, ['late', 'never', 'own30']],
        [9, ['never', 'own30']],
      ],
    },
    {
      from: 10,
      to: 20, // n -> longer m
      timeline: [
        [10, ['inh', 'late', 'never', 'own30']],
        [20 - 0.001, ['inh', 'late', 'never', 'own30']],
        [20, ['late', 'never', 'own30']],
        [26, ['never', 'own30']],
        [30, ['never']],
      ],
    },
    {
      from: 10,
      to: -1, // n -> -1: inheriting items live on, own ttls still count
      timeline: [
        [10, ['inh', 'late', 'never', 'own30']],
        [30, ['inh', 'late', 'never']],
        [FAR_S, ['inh', 'late', 'never']],
      ],
    },
    {
      from: -1,
      to: 4, // -1 -> n: 'inh' (T0) is over at once, 'late' (T0 + 6) at T0 + 10
      timeline: [
        [6, ['late', 'never', 'own30']],
        [10 - 0.001, ['late', 'never', 'own30']],
        [10, ['never', 'own30']],
      ],
    },
    {
      from: 10,
      to: null, // disabling: nothing expires, not even own ttls
      timeline: [
        [30, ['inh', 'late', 'never', 'own30']],
        [FAR_S, ['inh', 'late', 'never', 'own30']],
      ],
    },
  ]

  test.for(cases)('$from -> $to', async ({ from, to, timeline }) => {
    const { db, clock, before } = await scene(from)
    // 'own5' is over at T0 + 5 under any enabled default: gone before the change.
    expect(await db.get('s', 'own5')).toBeUndefined()
    await db.setDefaultTtl('s', to)
    expect(await db.getDefaultTtl('s')).toBe(to)
    // No item was rewritten: same values, same _ts, same bookkeeping.
    expect(await rawAll(db, 's')).toEqual(before)
    for (const [seconds, keys] of timeline) {
      clock.set(at(seconds))
      expectView(await view(db), keys)
      for (const key of ['inh', 'late', 'never', 'own30', 'own5']) {
        expect(await db.get('s', key), `${key} at +${seconds} s`).toEqual(keys.includes(key) ? expect.anything() : undefined)
      }
    }
  })

  test.for([
    { from: -1, to: 50, dead: ['i1', 'i2', 'i3'] },
    { from: 200, to: 50, dead: ['i1', 'i2', 'i3'] },
    { from: 200, to: 70, dead: ['i1', 'i2'] },
  ] as { from: DefaultTtl; to: DefaultTtl; dead: string[] }[])(
    'after $from -> $to the purge finds every item the change made expired, and only those',
    async ({ from, to, dead }) => {
      const { db, clock } = await open(from)
      await db.putAll('s', [{ id: 'i1' }, { id: 'i2' }, { id: 'keep', ttl: -1 }, { id: 'own', ttl: 500 }])
      clock.set(at(40))
      await db.put('s', { id: 'i3' })
      clock.set(at(100))
      expect(await db.purgeExpired('s')).toBe(0)
      await db.setDefaultTtl('s', to)
      const expectedLive = ['i1', 'i2', 'i3', 'keep', 'own'].filter((k) => !dead.includes(k))
      expectView(await view(db), expectedLive)
      expect(await db.purgeExpired('s')).toBe(dead.length)
      expect(await rawKeys(db, 's')).toEqual(expectedLive)
    },
  )

  test('-1 is not null: under -1 an item with its own ttl still expires', async () => {
    const minusOne = await open(10)
    const off = await open(10)
    for (const { db } of [minusOne, off]) await db.putAll('s', [{ id: 'own', ttl: 5 }, { id: 'inh' }])
    await minusOne.db.setDefaultTtl('s', -1)
    await off.db.setDefaultTtl('s', null)
    minusOne.clock.set(at(5))
    off.clock.set(at(5))
    expectView(await view(minusOne.db), ['inh'])
    expectView(await view(off.db), ['inh', 'own'])
  })

  test('disabling stops expiry for items that carry their own ttl', async () => {
    const { db, clock } = await open(10)
    await db.put('s', { id: 'a', ttl: 2 })
    clock.set(at(1))
    await db.setDefaultTtl('s', null)
    clock.set(FAR)
    expect(await db.get('s', 'a')).toMatchObject({ ttl: 2, _ts: TS0 })
    expect(await db.purgeExpired('s')).toBe(0)
    expect(await rawKeys(db, 's')).toEqual(['a'])
  })

  test.for([
    { to: 100, timeline: [[20, ['inh', 'never', 'own30']], [30, ['inh', 'never']], [100, ['never']]] },
    { to: -1, timeline: [[20, ['inh', 'never', 'own30']], [30, ['inh', 'never']], [FAR_S, ['inh', 'never']]] },
    { to: 12, timeline: [[20, ['never', 'own30']], [30, ['never']]] },
  ] as { to: DefaultTtl; timeline: [number, string[]][] }[])(
    're-enabling (null -> $to) counts own ttls, and the default, from the original _ts',
    async ({ to, timeline }) => {
      const { db, clock } = await open(10)
      await db.putAll('s', [{ id: 'inh' }, { id: 'never', ttl: -1 }, { id: 'own30', ttl: 30 }, { id: 'own5', ttl: 5 }])
      clock.set(at(1))
      await db.setDefaultTtl('s', null)
      clock.set(at(20))
      expectView(await view(db), ['inh', 'never', 'own30', 'own5'])
      const before = await rawAll(db, 's')
      await db.setDefaultTtl('s', to)
      expect(await rawAll(db, 's')).toEqual(before)
      for (const [seconds, keys] of timeline) {
        clock.set(at(seconds))
        expectView(await view(db), keys)
      }
    },
  )
})

describe('expired stays expired (SPEC §3)', () => {
  /** Changes applied from T0 + 10 s on, one second apart. */
  const changes: { name: string; steps: DefaultTtl[]; lateLives: boolean }[] = [
    { name: 'a longer default', steps: [MAX_TTL], lateLives: true },
    { name: '-1', steps: [-1], lateLives: true },
    { name: 'null (disabling)', steps: [null], lateLives: true },
    { name: 'null then re-enabling with a longer default', steps: [null, MAX_TTL], lateLives: true },
    { name: 'null then re-enabling with -1', steps: [null, -1], lateLives: true },
    { name: '-1, then null, then a longer default, then null', steps: [-1, null, MAX_TTL, null], lateLives: true },
    { name: 'a shorter default', steps: [2], lateLives: false },
  ]
  const cases = changes.flatMap((c) => [
    { ...c, purged: 'purged before the change', purge: true },
    { ...c, purged: 'not purged', purge: false },
  ])

  test.for(cases)('through $name, $purged', async ({ steps, lateLives, purge }) => {
    const { db, clock } = await open(10)
    // 'inh' inherits (dies at +10), 'own' has ttl 5 (dies at +5), 'keep' never dies,
    // 'late' inherits but is written at +8 (alive at +10).
    await db.putAll('s', [
      { id: 'inh', tag: 't' },
      { id: 'own', ttl: 5, tag: 't' },
      { id: 'keep', ttl: -1, tag: 'k' },
    ])
    clock.set(at(8))
    await db.put('s', { id: 'late', tag: 'l' })
    clock.set(at(10))
    expectView(await view(db), ['keep', 'late'])
    if (purge) expect(await db.purgeExpired('s')).toBe(2)

    let t = 10
    for (const step of steps) {
      clock.set(at(t++))
      await db.setDefaultTtl('s', step)
      for (const id of ['inh', 'own']) expect(await db.get('s', id), `${id} after setDefaultTtl(${step})`).toBeUndefined()
    }
    const alive = lateLives ? ['keep', 'late'] : ['keep']
    for (const seconds of [t, t + 500, FAR_S]) {
      clock.set(at(seconds))
      expectView(await view(db), alive)
      expect(await db.get('s', 'inh')).toBeUndefined()
      expect(await db.get('s', 'own')).toBeUndefined()
      expect(await db.getFromIndex('s', 'byTag', 't')).toBeUndefined()
      expect(await db.getAllFromIndex('s', 'byTag', 't')).toEqual([])
      expect(await db.countFromIndex('s', 'byTag', 't')).toBe(0)
      await expectTtlError(db.touch('s', 'inh'), 'NOT_FOUND')
    }
    if (!purge) {
      // The purge finds what the changes left dead, and nothing else.
      expect(await db.purgeExpired('s')).toBe(2 + (lateLives ? 0 : 1))
      expect(await rawKeys(db, 's')).toEqual(alive)
    }

    // Until a new write with the key creates it anew (over the dead item, when not purged).
    await db.put('s', { id: 'inh', tag: 't', v: 'new' })
    await db.add('s', { id: 'own', ttl: 5, tag: 't', v: 'new' })
    expect(await db.get('s', 'inh')).toMatchObject({ v: 'new', _ts: TS0 + FAR_S })
    expect(await db.get('s', 'own')).toMatchObject({ v: 'new', _ts: TS0 + FAR_S })
    expect(await db.countFromIndex('s', 'byTag', 't')).toBe(2)
    expectView(await view(db), [...alive, 'inh', 'own'].sort())
    expect(await db.purgeExpired('s')).toBe(purge && !lateLives ? 1 : 0)
    expect(await rawKeys(db, 's')).toEqual([...alive, 'inh', 'own'].sort())
  })

  test('changing the default back before a purge does not revive an item the shorter default killed', async () => {
    const { db, clock } = await open(100)
    await db.put('s', { id: 'a' })
    clock.set(at(20))
    await db.setDefaultTtl('s', 10) // 'a' dies at once
    expect(await db.get('s', 'a')).toBeUndefined()
    clock.set(at(21))
    await db.setDefaultTtl('s', 100)
    expect(await db.get('s', 'a')).toBeUndefined()
    await db.setDefaultTtl('s', null)
    clock.set(FAR)
    expect(await db.get('s', 'a')).toBeUndefined()
    expect(await db.count('s')).toBe(0)
  })
})

describe('writes and deletes over expired keys (SPEC §2)', () => {
  /** 'a' inherits default 10 and is dead at +10; 'live' never dies. */
  async function withDead(killBy: 'time' | 'shorter default' | 'disabled after expiry') {
    const { db, clock } = await open(10)
    await db.putAll('s', [{ id: 'a', v: 'old', tag: 'x' }, { id: 'live', ttl: -1 }])
    if (killBy === 'shorter default') {
      clock.set(at(5))
      await db.setDefaultTtl('s', 2)
    } else {
      clock.set(at(10))
      if (killBy === 'disabled after expiry') await db.setDefaultTtl('s', null)
    }
    clock.advance(500)
    expect(await db.get('s', 'a')).toBeUndefined()
    expect(await rawGet(db, 's', 'a')).toBeDefined()
    return { db, clock }
  }
  const kills = ['time', 'shorter default', 'disabled after expiry'] as const

  test.for(kills)('add over a key whose item is dead (by %s) succeeds', async (killBy) => {
    const { db, clock } = await withDead(killBy)
    expect(await db.add('s', { id: 'a', v: 'new' })).toBe('a')
    const ts = Math.floor(clock.now / SECOND)
    expect(await db.get('s', 'a')).toEqual({ id: 'a', v: 'new', _ts: ts })
    expect(await rawGet(db, 's', 'a')).toMatchObject({ v: 'new', _ts: ts })
    expect(await db.count('s')).toBe(2)
  })

  test('add over a live key rejects ConstraintError and changes nothing', async () => {
    const { db, clock } = await open(10)
    await db.put('s', { id: 'a', v: 'old' })
    clock.set(at(10) - 1)
    const before = await rawAll(db, 's')
    await expectDomError(db.add('s', { id: 'a', v: 'new' }), 'ConstraintError')
    expect(await rawAll(db, 's')).toEqual(before)
    expect(await db.get('s', 'a')).toMatchObject({ v: 'old' })
  })

  test.for(kills)('update and touch of a key whose item is dead (by %s) reject NOT_FOUND', async (killBy) => {
    const { db } = await withDead(killBy)
    const before = await rawAll(db, 's')
    await expectTtlError(db.update('s', 'a', { v: 'new' }), 'NOT_FOUND')
    await expectTtlError(db.touch('s', 'a'), 'NOT_FOUND')
    await expectTtlError(db.update('s', 'a', (item) => ({ ...item, v: 'new' })), 'NOT_FOUND')
    expect(await rawAll(db, 's')).toEqual(before)
    expect(await db.get('s', 'a')).toBeUndefined()
  })

  test('update and touch of a key that never existed reject NOT_FOUND', async () => {
    const { db } = await open(10)
    await expectTtlError(db.update('s', 'x', { v: 1 }), 'NOT_FOUND')
    await expectTtlError(db.touch('s', 'x'), 'NOT_FOUND')
    expect(await db.raw.count('s')).toBe(0)
  })

  test.for(kills)('delete of a key whose item is dead (by %s) is fine', async (killBy) => {
    const { db } = await withDead(killBy)
    await db.delete('s', 'a')
    expect(await rawGet(db, 's', 'a')).toBeUndefined()
    expectView(await view(db), ['live'])
    expect(await db.purgeExpired('s')).toBe(0)
    await db.add('s', { id: 'a', v: 'new' })
    expectView(await view(db), ['a', 'live'])
  })

  test.for(kills)('delete by a key range over a dead item (by %s) removes only what it covers', async (killBy) => {
    const { db } = await withDead(killBy)
    await db.delete('s', IDBKeyRange.bound('a', 'b'))
    expect(await rawKeys(db, 's')).toEqual(['live'])
    expectView(await view(db), ['live'])
  })

  test('a unique index value held only by an expired item does not block a new write', async () => {
    const clock = manualClock(T0)
    const db = await freshDB({
      clock,
      stores: { u: { keyPath: 'id', defaultTtl: -1, indexes: { byEmail: { keyPath: 'email', unique: true } } } },
    })
    await db.put('u', { id: 'a', email: 'x@example.org', ttl: 5 })
    await db.put('u', { id: 'c', email: 'y@example.org' })
    clock.set(at(5) - 1)
    await expectDomError(db.put('u', { id: 'b', email: 'x@example.org' }), 'ConstraintError')
    await expectDomError(db.update('u', 'c', { email: 'x@example.org' }), 'ConstraintError')
    expect(await db.getFromIndex('u', 'byEmail', 'x@example.org')).toMatchObject({ id: 'a' })
    clock.set(at(5))
    await db.put('u', { id: 'b', email: 'x@example.org' })
    expect(await db.getFromIndex('u', 'byEmail', 'x@example.org')).toMatchObject({ id: 'b' })
    expect(await db.getAllKeys('u')).toEqual(['b', 'c'])
    // And by add and update as well, once 'b' is dead in turn.
    await db.update('u', 'b', { ttl: 1 })
    clock.set(at(6))
    await db.add('u', { id: 'd', email: 'x@example.org' })
    clock.set(at(7))
    await db.delete('u', 'd')
    await db.update('u', 'c', { email: 'x@example.org' })
    expect(await db.getFromIndex('u', 'byEmail', 'x@example.org')).toMatchObject({ id: 'c' })
    expect(await db.getAllKeys('u')).toEqual(['c'])
  })
})

describe('the store default lives in the database (SPEC §3)', () => {
  test('a second connection sees setDefaultTtl of the first, and so does a reopen', async () => {
    const clock = manualClock(T0)
    const name = uniqueName('shared')
    const options = { clock, stores: { s: { keyPath: 'id', defaultTtl: 100 } } }
    const first = await freshDB(options, name)
    const second = await freshDB(options, name)
    await second.put('s', { id: 'a' })
    await first.setDefaultTtl('s', 5)
    expect(await second.getDefaultTtl('s')).toBe(5)
    clock.set(at(5) - 1)
    expect(await second.get('s', 'a')).toBeDefined()
    clock.set(at(5))
    expect(await second.get('s', 'a')).toBeUndefined()

    first.close()
    second.close()
    // The declaration did not change (100): the persisted 5 stays in force.
    const third = await freshDB(options, name)
    expect(await third.getDefaultTtl('s')).toBe(5)
    await third.put('s', { id: 'b' })
    clock.set(at(10))
    expect(await third.get('s', 'b')).toBeUndefined()
  })

  test('an open whose declarations did not change writes nothing; one that changed them writes the settings', async () => {
    const name = uniqueName('redeclare-write')
    const declare = (defaultTtl: DefaultTtl) => ({ stores: { s: { keyPath: 'id', defaultTtl }, t: { keyPath: 'id', defaultTtl: 5 } } })
    ;(await freshDB(declare(10), name)).close()
    const transaction = vi.spyOn(IDBDatabase.prototype, 'transaction')
    const settingsWrites = () => transaction.mock.calls.filter(([stores, mode]) => [stores].flat().includes('__idb_ttl_meta') && mode === 'readwrite').length
    try {
      ;(await freshDB(declare(10), name)).close()
      expect(settingsWrites(), 'same declarations').toBe(0)
      const changed = await freshDB(declare(20), name)
      expect(settingsWrites(), 'a changed declaration').toBe(1)
      expect(await changed.getDefaultTtl('s')).toBe(20)
      expect(await changed.getDefaultTtl('t')).toBe(5)
    } finally {
      transaction.mockRestore()
    }
  })

  test.for([
    { from: 10, to: 100, lifeAfter: 100 },
    { from: 10, to: -1, lifeAfter: null },
    { from: 10, to: null, lifeAfter: null },
    { from: null, to: 10, lifeAfter: 10 },
    { from: -1, to: 30, lifeAfter: 30 },
  ] as { from: DefaultTtl; to: DefaultTtl; lifeAfter: number | null }[])(
    'a changed declaration ($from -> $to) applies on reopen',
    async ({ from, to, lifeAfter }) => {
      const clock = manualClock(T0)
      const name = uniqueName('redeclare')
      const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: from } } }, name)
      await db.put('s', { id: 'a' })
      clock.set(at(5))
      db.close()
      const reopened = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: to } } }, name)
      expect(await reopened.getDefaultTtl('s')).toBe(to)
      if (lifeAfter === null) {
        clock.set(FAR)
        expect(await reopened.get('s', 'a')).toBeDefined()
      } else {
        clock.set(at(lifeAfter) - 1)
        expect(await reopened.get('s', 'a')).toBeDefined()
        clock.set(at(lifeAfter))
        expect(await reopened.get('s', 'a')).toBeUndefined()
      }
    },
  )

  test('a changed declaration does not revive an item that expired before the reopen', async () => {
    const clock = manualClock(T0)
    const name = uniqueName('redeclare-dead')
    const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
    await db.putAll('s', [{ id: 'a' }, { id: 'b', ttl: 3 }])
    db.close()
    clock.set(at(20))
    for (const defaultTtl of [1000, -1, null] as DefaultTtl[]) {
      const reopened = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl } } }, name)
      expect(await reopened.getDefaultTtl('s')).toBe(defaultTtl)
      expect(await reopened.getAllKeys('s')).toEqual([])
      expect(await reopened.raw.count('s')).toBe(2)
      reopened.close()
    }
  })
})

describe('purgeExpired (SPEC §2)', () => {
  test('returns how many it deleted, per store and in all, and never removes a live item', async () => {
    const clock = manualClock(T0)
    const db = await freshDB({
      clock,
      stores: {
        s: { keyPath: 'id', defaultTtl: 10 },
        t: { keyPath: 'id', defaultTtl: -1 },
        off: { keyPath: 'id' },
      },
    })
    await db.putAll('s', [{ id: 's1' }, { id: 's2', ttl: 3 }, { id: 's3', ttl: 20 }, { id: 's4', ttl: -1 }])
    await db.putAll('t', [{ id: 't1' }, { id: 't2', ttl: 3 }, { id: 't3', ttl: 4 }])
    await db.putAll('off', [{ id: 'o1', ttl: 1 }, { id: 'o2' }])
    clock.set(at(3))
    expect(await db.purgeExpired('s')).toBe(1)
    expect(await rawKeys(db, 's')).toEqual(['s1', 's3', 's4'])
    clock.set(at(10))
    expect(await db.purgeExpired()).toBe(3) // s1, t2, t3
    expect(await rawKeys(db, 's')).toEqual(['s3', 's4'])
    expect(await rawKeys(db, 't')).toEqual(['t1'])
    expect(await rawKeys(db, 'off')).toEqual(['o1', 'o2'])
    expect(await db.purgeExpired()).toBe(0)
    clock.set(FAR)
    expect(await db.purgeExpired()).toBe(1) // s3
    expect(await rawKeys(db, 's')).toEqual(['s4'])
    expect(await db.getAllKeys('s')).toEqual(['s4'])
    expect(await db.getAllKeys('t')).toEqual(['t1'])
    expect(await db.getAllKeys('off')).toEqual(['o1', 'o2'])
  })

  test('an item that dies between two purges is taken by the second, not the first', async () => {
    const { db, clock } = await open(10)
    await db.put('s', { id: 'a' })
    clock.set(at(10) - 1)
    expect(await db.purgeExpired()).toBe(0)
    expect(await rawKeys(db, 's')).toEqual(['a'])
    clock.set(at(10))
    expect(await db.purgeExpired()).toBe(1)
    expect(await rawKeys(db, 's')).toEqual([])
  })

  const big = [
    { name: '700 dead written in the same second, inheriting and own ttl', spread: false },
    { name: '700 dead written over 100 seconds, inheriting and own ttl', spread: true },
  ]
  test.for(big)('more dead items than one batch (300): $name', { timeout: 60_000 }, async ({ spread }) => {
    const clock = manualClock(T0)
    const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 1000 } } })
    const id = (i: number) => `k${String(i).padStart(4, '0')}`
    // Every third item carries its own ttl; all die by +1700 s.
    const item = (i: number) => (i % 3 === 0 ? { id: id(i), ttl: 900 } : { id: id(i) })
    const all = Array.from({ length: 700 }, (_, i) => item(i))
    if (spread) {
      for (let second = 0; second < 100; second++) {
        clock.set(at(second))
        await db.putAll('s', all.slice(second * 7, second * 7 + 7))
      }
    } else await db.putAll('s', all)
    expect(await db.raw.count('s')).toBe(700)
    const live = Array.from({ length: 25 }, (_, i) => `live${String(i).padStart(2, '0')}`)
    await db.putAll('s', live.map((k) => ({ id: k, ttl: -1 })))
    clock.set(at(1700))
    expect(await db.count('s')).toBe(25)
    expect(await db.purgeExpired('s')).toBe(700)
    expect(await rawKeys(db, 's')).toEqual(live)
    expect(await db.purgeExpired('s')).toBe(0)
  })

  test.for([
    { name: 'inheriting default 10', item: {}, dies: 10 },
    { name: 'own ttl 5', item: { ttl: 5 }, dies: 5 },
  ])('700 items that all die at the very instant of the purge ($name)', async ({ item, dies }) => {
    const clock = manualClock(T0)
    const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
    await db.putAll('s', Array.from({ length: 700 }, (_, i) => ({ id: i, ...item })))
    await db.put('s', { id: 'live', ttl: -1 })
    clock.set(at(dies) - 1)
    expect(await db.purgeExpired('s')).toBe(0)
    clock.set(at(dies))
    expect(await db.purgeExpired('s')).toBe(700)
    expect(await rawKeys(db, 's')).toEqual(['live'])
  })
})

describe('opening and upgrading (SPEC §3, §5)', () => {
  test('a higher version adds a store and an index without losing data or restamping', async () => {
    const clock = manualClock(T0)
    const name = uniqueName('upgrade')
    const v1 = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 100 } } }, name)
    await v1.putAll('s', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2', ttl: 5 }])
    v1.close()
    clock.set(at(2))
    const v2 = await freshDB(
      {
        clock,
        version: 2,
        stores: {
          s: { keyPath: 'id', defaultTtl: 100, indexes: { byUser: { keyPath: 'user' } } },
          t: { keyPath: 'id', defaultTtl: 10 },
        },
      },
      name,
    )
    expect(v2.raw.version).toBe(2)
    expect(await v2.get('s', 'a')).toEqual({ id: 'a', user: 'u1', _ts: TS0 })
    expect(await v2.getFromIndex('s', 'byUser', 'u2')).toMatchObject({ id: 'b', _ts: TS0 })
    expect(await v2.countFromIndex('s', 'byUser')).toBe(2)
    await v2.put('t', { id: 'x' })
    clock.set(at(5))
    // 'b' keeps its countdown from T0, not from the upgrade.
    expect(await v2.getAllFromIndex('s', 'byUser')).toEqual([{ id: 'a', user: 'u1', _ts: TS0 }])
    expect(await v2.get('t', 'x')).toBeDefined()
    clock.set(at(12))
    expect(await v2.get('t', 'x')).toBeUndefined()
    expect(await v2.count('s')).toBe(1)
  })

  test('a database made by plain idb is taken over at a higher version: items get _ts = upgrade time', async () => {
    const name = deleteAfter(uniqueName('plain'))
    const plain = await openDB(name, 1, {
      upgrade(db) {
        db.createObjectStore('s', { keyPath: 'id' })
        db.createObjectStore('untouched')
      },
    })
    await plain.put('s', { id: 'a', v: 1 })
    await plain.put('s', { id: 'b', v: 2, ttl: 3 })
    await plain.put('s', { id: 'c', v: 3, ttl: -1, _ts: TS0 + 1_000_000 })
    await plain.put('untouched', 'raw value', 'k')
    plain.close()

    const clock = manualClock(T0 + 5600)
    const db = await freshDB({ clock, version: 2, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
    const upgradeTs = TS0 + 5
    expect(await db.getAll('s')).toEqual([
      { id: 'a', v: 1, _ts: upgradeTs },
      { id: 'b', v: 2, ttl: 3, _ts: upgradeTs },
      { id: 'c', v: 3, ttl: -1, _ts: upgradeTs },
    ])
    expect(await db.raw.get('untouched', 'k')).toBe('raw value')
    clock.set((upgradeTs + 3) * SECOND - 1)
    expectView(await view(db), ['a', 'b', 'c'])
    clock.set((upgradeTs + 3) * SECOND)
    expectView(await view(db), ['a', 'c'])
    clock.set((upgradeTs + 10) * SECOND - 1)
    expectView(await view(db), ['a', 'c'])
    clock.set((upgradeTs + 10) * SECOND)
    expectView(await view(db), ['c'])
    expect(await db.purgeExpired('s')).toBe(2)
    expect(await rawKeys(db, 's')).toEqual(['c'])
  })

  test('opening at the same version when a plain idb database lacks the TTL stores rejects SCHEMA_MISMATCH', async () => {
    const name = deleteAfter(uniqueName('plain-same'))
    const plain = await openDB(name, 1, { upgrade: (db) => void db.createObjectStore('s', { keyPath: 'id' }) })
    await plain.put('s', { id: 'a' })
    plain.close()
    await expectTtlError(
      freshDB({ clock: manualClock(T0), stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name),
      'SCHEMA_MISMATCH',
    )
    const after = await openDB(name)
    expect(after.version).toBe(1)
    expect(await after.getAll('s')).toEqual([{ id: 'a' }])
    after.close()
  })

  test('opening at the same version with a newly declared store rejects SCHEMA_MISMATCH and keeps data', async () => {
    const clock = manualClock(T0)
    const name = uniqueName('missing-store')
    const v1 = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
    await v1.put('s', { id: 'a' })
    v1.close()
    await expectTtlError(
      freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 }, t: { keyPath: 'id' } } }, name),
      'SCHEMA_MISMATCH',
    )
    const again = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
    expect(await again.get('s', 'a')).toEqual({ id: 'a', _ts: TS0 })
  })

  test('opening at the same version with a newly declared index rejects SCHEMA_MISMATCH naming the index and the version to open, not UNKNOWN_INDEX at its first use', async () => {
    const clock = manualClock(T0)
    const name = uniqueName('missing-index')
    const v1 = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
    await v1.put('s', { id: 'a', user: 'u1' })
    v1.close()
    const indexed = { s: { keyPath: 'id', defaultTtl: 10, indexes: { byUser: { keyPath: 'user' } } } }
    await expect(freshDB({ clock, stores: indexed }, name)).rejects.toMatchObject({
      name: 'TtlError',
      code: 'SCHEMA_MISMATCH',
      message: expect.stringMatching(/index "byUser" of store "s".*open it with a higher version \(2\)/),
    })
    const v2 = await freshDB({ clock, version: 2, stores: indexed }, name)
    expect(await v2.getAllFromIndex('s', 'byUser', 'u1')).toEqual([{ id: 'a', user: 'u1', _ts: TS0 }])
  })

  test.each([
    { change: 'keyPath', declared: { keyPath: 'key' }, words: 'has keyPath "id", declared with keyPath "key"' },
    { change: 'compound keyPath', declared: { keyPath: ['id', 'user'] }, words: 'has keyPath "id", declared with keyPath ["id","user"]' },
    { change: 'autoIncrement', declared: { keyPath: 'id', autoIncrement: true }, words: 'has keyPath "id", declared with keyPath "id" with autoIncrement' },
  ])('a changed $change is refused at open with SCHEMA_MISMATCH naming the store and both keys, at the same version and at a higher one, which then changes nothing', async ({ declared, words }) => {
    const clock = manualClock(T0)
    const name = uniqueName('key-path')
    const v1 = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
    await v1.put('s', { id: 'a', key: 'k', user: 'u1' })
    v1.close()
    // At version 2 with a new store too: the upgrade, refused, creates it not.
    const changed = { s: { ...declared, defaultTtl: 10 } }
    for (const [version, stores] of [[1, changed], [2, { ...changed, t: { keyPath: 'id' } }]] as const) {
      await expect(freshDB({ clock, version, stores }, name), `version ${version}`).rejects.toMatchObject({
        name: 'TtlError',
        code: 'SCHEMA_MISMATCH',
        message: expect.stringContaining(`store "s" of database "${name}" ${words}: IndexedDB cannot change the key`),
      })
    }
    const after = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
    expect(after.raw.version).toBe(1)
    expect([...after.raw.objectStoreNames]).not.toContain('t')
    expect(await after.get('s', 'a')).toEqual({ id: 'a', key: 'k', user: 'u1', _ts: TS0 })
  })
})
