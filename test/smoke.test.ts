import { expect, test } from 'vitest'
import { freshDB, manualClock } from './helpers.js'

test('put then get returns the value with _ts and hides it once expired', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
  await db.put('s', { id: 'a', v: 1 })
  expect(await db.get('s', 'a')).toEqual({ id: 'a', v: 1, _ts: clock.now / 1000 })
  clock.advance(10_000)
  expect(await db.get('s', 'a')).toBeUndefined()
  expect(await db.count('s')).toBe(0)
  expect(await db.raw.count('s')).toBe(1)
  expect(await db.purgeExpired()).toBe(1)
  expect(await db.raw.count('s')).toBe(0)
})
