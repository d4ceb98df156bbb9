// SPEC §15 in a real browser: the purge worker, which knows a store's grace only from its settings
// in the database, keeps a stale item until its grace ends, then deletes it.
import { expect, test, vi } from 'vitest'
import type { ExpireEvent } from '../../src/index.js'
import { countOnDisk, freshDB, manualClock } from '../helpers.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 15_000, interval: 10 })

test('the purge worker keeps a stale item for its grace and deletes it when the grace ends', async () => {
  const clock = manualClock()
  // A slice visits the stores in name order: once "z" is purged, "a" has been judged in the same slice.
  const stores = { a: { keyPath: 'id', defaultTtl: 10, keepExpired: 60 }, z: { keyPath: 'id', defaultTtl: 10 } }
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', maxIntervalMs: 20, idleTimeoutMs: 5 } })
  const heard: ExpireEvent[] = []
  db.onExpire((event) => heard.push(event))
  const name = db.raw.name
  await db.put('a', { id: 'kept' })
  await db.put('z', { id: 'gone' })
  clock.advance(10_000)
  await until(async () => expect(await countOnDisk(name, 'z')).toBe(0))
  expect(await db.get('a', 'kept')).toBeUndefined()
  expect(await countOnDisk(name, 'a')).toBe(1)
  expect(await db.getStale('a', 'kept')).toMatchObject({ value: { id: 'kept' }, expiredAt: clock.now })
  // The grace ends at 70 s: a plain item that expires at 69 s shows a slice judged the store at 69 s.
  await db.put('z', { id: 'at 69 s', ttl: 59 })
  clock.advance(59_000)
  await until(async () => expect(await countOnDisk(name, 'z')).toBe(0))
  expect(await countOnDisk(name, 'a')).toBe(1)
  expect(await db.getAllStale('a')).toMatchObject([{ key: 'kept' }])
  clock.advance(1_000)
  await until(async () => expect(await countOnDisk(name, 'a')).toBe(0))
  expect(await db.getStale('a', 'kept')).toBeUndefined()
  await until(() => expect(heard.map((e) => [e.store, e.reason, e.items.map((i) => i.key)])).toEqual([['z', 'expired', ['gone']], ['z', 'expired', ['at 69 s']], ['a', 'expired', ['kept']]]))
})
