import { expect, test, vi } from 'vitest'
import { freshDB, manualClock } from '../helpers.js'

test('worker purge deletes expired items physically', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, purge: { mode: 'worker', maxIntervalMs: 20 }, stores: { s: { keyPath: 'id', defaultTtl: 5 } } })
  await db.putAll('s', Array.from({ length: 50 }, (_, i) => ({ id: i, ttl: i < 40 ? undefined : -1 })))
  clock.advance(5000)
  await vi.waitFor(async () => expect(await db.raw.count('s')).toBe(10), { timeout: 5000, interval: 20 })
  expect(await db.count('s')).toBe(10)
})
