// Issue #44: the handle's less common calls run what `assembly/calls.ts` brings, which the page
// entries load at the first of them (the `calls` loader, counted here as test/lazy/loaders.ts hands
// it in). An app that gets by key, puts, deletes, gets all and counts never loads it; a call that
// waits for it still creates its transaction in its turn (handle/turns.ts), so a put made after it
// lands after it; a load that fails rejects the call with its error, writes nothing, lets the calls
// after it run, and the next call loads again; an unknown store or a bad ttl is refused whether or
// not it loads.
import { expect, test } from 'vitest'
import { chunks } from '../lazy/loaders.js'
import { inlineBackground } from '../../src/background/inline.js'
import type { TtlDB } from '../../src/assembly/db.js'
import type { OpenTtlDBOptions } from '../../src/rules/types.js'
import { manualClock, SOON, uniqueName } from '../helpers.js'
import { T0 } from '../semantics/support.js'

type Item = { id: number; n?: number; ttl?: number }
const stores = { s: { keyPath: 'id', defaultTtl: 60, indexes: { byN: { keyPath: 'n' } } } } as const

async function opened(options: Partial<OpenTtlDBOptions> = {}) {
  const load = chunks()
  const db = (await load.open(uniqueName(), { stores, ...options }, inlineBackground)) as TtlDB
  return { calls: load.calls, db }
}

const ids = (items: readonly unknown[]) => items.map((item) => (item as Item).id)

test("the minimal app's calls, and the others that need nothing more, load none of it", async () => {
  const { calls, db } = await opened()
  await db.put('s', { id: 1, n: 0 })
  await db.putAll('s', [{ id: 2, n: 1 }])
  await db.add('s', { id: 3, n: 2 })
  expect(await db.get('s', 1)).toMatchObject({ id: 1 })
  expect(ids(await db.getAll('s'))).toEqual([1, 2, 3])
  expect(await db.count('s')).toBe(3)
  expect(ids(await db.getAllFromIndex('s', 'byN'))).toEqual([1, 2, 3])
  expect(await db.countFromIndex('s', 'byN')).toBe(3)
  await db.delete('s', 1)
  await db.clear('s')
  expect(await db.count('s')).toBe(0)
  expect(calls.loads).toBe(0)
  db.close()
})

/** Each call that loads it: `run` it on `store` (`s` by default), holding `{ id: 1, n: 0 }`; `after`, a put made while it loads; what it answers then. */
const calls: { name: string; run: (db: TtlDB, store?: string) => Promise<unknown>; after: Item; answers: unknown }[] = [
  { name: 'update', run: (db, store = 's') => db.update(store, 1, { n: 1 }), after: { id: 1, n: 2 }, answers: expect.objectContaining({ id: 1, n: 1 }) },
  { name: 'touch', run: (db, store = 's') => db.touch(store, 1), after: { id: 1, n: 2 }, answers: expect.objectContaining({ id: 1, n: 0 }) },
  { name: 'get by a range', run: (db, store = 's') => db.get(store, IDBKeyRange.lowerBound(0)), after: { id: 0, n: 2 }, answers: expect.objectContaining({ id: 1 }) },
  { name: 'getAllKeys', run: (db, store = 's') => db.getAllKeys(store), after: { id: 2, n: 2 }, answers: [1] },
  { name: 'expiresAt', run: (db, store = 's') => db.expiresAt(store, 1), after: { id: 1, n: 2, ttl: 5 }, answers: T0 + 60_000 },
  { name: 'getFromIndex', run: (db, store = 's') => db.getFromIndex(store, 'byN', IDBKeyRange.lowerBound(0)), after: { id: 0, n: 0 }, answers: expect.objectContaining({ id: 1 }) },
  { name: 'getAllKeysFromIndex', run: (db, store = 's') => db.getAllKeysFromIndex(store, 'byN'), after: { id: 2, n: 2 }, answers: [1] },
  { name: 'stats', run: (db, store = 's') => db.stats(store), after: { id: 2, n: 2 }, answers: { live: 1, expiredOnDisk: 0, nextExpiryMs: T0 + 60_000 } },
  {
    name: 'iterate',
    run: async (db, store = 's') => {
      const seen: number[] = []
      for await (const item of db.iterate(store)) seen.push((item as Item).id)
      return seen
    },
    after: { id: 2, n: 2 },
    answers: [1],
  },
]

for (const { name, run, after, answers } of calls) {
  test(`${name} loads it at its first use and takes its turn at the call: a put made while it loads lands after it`, async () => {
    const { calls, db } = await opened({ clock: manualClock(T0) })
    await db.put('s', { id: 1, n: 0 })
    calls.hold()
    const answer = run(db)
    await expect.poll(() => calls.loads, SOON).toBe(1)
    const put = db.put('s', after)
    calls.release()
    expect(await answer).toEqual(answers)
    await put
    expect(await db.get('s', after.id)).toMatchObject(after)
    // Loaded: the next call runs on it.
    await run(db)
    db.close()
  })

  test(`${name} whose load fails rejects with its error, lets the calls after it run, and loads again at the next`, async () => {
    const { calls, db } = await opened({ clock: manualClock(T0) })
    await db.put('s', { id: 1, n: 0 })
    const offline = new TypeError('Failed to fetch dynamically imported module')
    calls.failNext(offline)
    const failed = run(db)
    const put = db.put('s', { id: 5, n: 5 })
    await expect(failed).rejects.toBe(offline)
    await put
    expect(await db.get('s', 1)).toMatchObject({ id: 1, n: 0 })
    expect(await run(db)).toBeDefined()
    expect(calls.loads).toBe(2)
    db.close()
  })

  test(`${name} of an unknown store rejects with UNKNOWN_STORE, loading nothing`, async () => {
    const { calls, db } = await opened()
    await expect(run(db, 'nope')).rejects.toMatchObject({ code: 'UNKNOWN_STORE' })
    expect(calls.loads).toBe(0)
    db.close()
  })
}

test('setDefaultTtl and getDefaultTtl load it at the first; a failed load changes nothing, and the next loads again', async () => {
  const { calls, db } = await opened()
  calls.failNext(new TypeError('offline'))
  await expect(db.setDefaultTtl('s', 10)).rejects.toThrow('offline')
  expect(calls.loads).toBe(1)
  expect(await db.getDefaultTtl('s')).toBe(60)
  await db.setDefaultTtl('s', 10)
  expect(await db.getDefaultTtl('s')).toBe(10)
  // The failed load and the next: once loaded, the handle keeps the chunk (no import() per call).
  expect(calls.loads).toBe(2)
  db.close()
})

test('purgeExpired loads it at the first, an unknown store refused before; a failed load rejects with its error and purges nothing, the next loads again and purges', async () => {
  const clock = manualClock(T0)
  const { calls, db } = await opened({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
  const reports: unknown[] = []
  db.onPurge((report) => reports.push(report))
  await db.putAll('s', [{ id: 1 }, { id: 2 }])
  clock.advance(11_000)
  calls.failNext(new TypeError('offline'))
  await expect(db.purgeExpired('nope' as never)).rejects.toMatchObject({ code: 'UNKNOWN_STORE' })
  expect(calls.loads).toBe(0)
  await expect(db.purgeExpired('s')).rejects.toThrow('offline')
  expect(calls.loads).toBe(1)
  expect(await db.raw.count('s')).toBe(2)
  expect(await db.purgeExpired()).toBe(2)
  expect(calls.loads).toBe(2)
  expect(await db.raw.count('s')).toBe(0)
  expect(reports).toMatchObject([{ store: '*', deleted: 2 }])
  db.close()
})

test('a bad ttl is refused with INVALID_TTL and an unknown store with UNKNOWN_STORE before it loads, whether or not it would', async () => {
  const { calls, db } = await opened()
  calls.failNext(new TypeError('offline'))
  await expect(db.setDefaultTtl('s', 1.5)).rejects.toMatchObject({ code: 'INVALID_TTL' })
  await expect(db.setDefaultTtl('s', undefined as never)).rejects.toMatchObject({ code: 'INVALID_TTL' })
  await expect(db.setDefaultTtl('nope' as never, 1.5)).rejects.toMatchObject({ code: 'UNKNOWN_STORE' })
  await expect(db.getDefaultTtl('nope' as never)).rejects.toMatchObject({ code: 'UNKNOWN_STORE' })
  // Refused before it loads: the failure waits for the first call that loads.
  expect(calls.loads).toBe(0)
  await expect(db.getDefaultTtl('s')).rejects.toThrow('offline')
  expect(await db.getDefaultTtl('s')).toBe(60)
  db.close()
})

test('add over a dead holder loads it to claim the key; a failed load rejects with its error, writes nothing, and the next add loads again', async () => {
  const clock = manualClock(T0)
  const { calls, db } = await opened({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
  await db.put('s', { id: 1, n: 0 })
  clock.advance(11_000)
  const offline = new TypeError('offline')
  calls.failNext(offline)
  await expect(db.add('s', { id: 1, n: 1 })).rejects.toBe(offline)
  expect(await db.get('s', 1)).toBeUndefined()
  expect(await db.add('s', { id: 1, n: 2 })).toBe(1)
  expect(await db.get('s', 1)).toMatchObject({ n: 2 })
  expect(calls.loads).toBe(2)
  db.close()
})
