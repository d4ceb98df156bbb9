// Purge batches resume where the last one stopped, without skipping items whose marks tie.
import { unwrap } from 'idb'
import { expect, test, vi } from 'vitest'
import { purgeSlice, purgeStore } from '../../src/purge/purge.js'
import { freshDB, manualClock } from '../helpers.js'

test.for([
  { name: 'inheriting', item: {} },
  { name: 'own ttl', item: { ttl: 5 } },
])('items whose expiry marks tie exactly are all purged across batches ($name)', async ({ item }) => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 5 } } })
  const random = vi.spyOn(Math, 'random').mockReturnValue(0.5)
  try {
    await db.putAll('s', Array.from({ length: 250 }, (_, i) => ({ id: i, ...item })))
  } finally {
    random.mockRestore()
  }
  await db.put('s', { id: 'live', ttl: -1 })
  clock.advance(5_000)
  expect(await purgeStore(async () => unwrap(db.raw), 's', clock, 100)).toBe(250)
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})

test('a slice that resumes in the own-ttl range still takes inheriting items that died since', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 20 } } })
  await db.putAll('s', Array.from({ length: 4 }, (_, i) => ({ id: `own-${i}`, ttl: 5 })))
  await db.put('s', { id: 'inherits' })
  clock.advance(5_000)
  const resume = new Map()
  const options = { batchSize: 2, sliceMs: 0 }
  // One batch per slice (sliceMs 0): the first stops inside the own-ttl range.
  const [first] = await purgeSlice(async () => unwrap(db.raw), ['s'], clock(), options, resume)
  expect(first).toMatchObject({ deleted: 2, more: true })
  clock.advance(15_000)
  let report
  do [report] = await purgeSlice(async () => unwrap(db.raw), ['s'], clock(), options, resume)
  while (report.more)
  expect(await db.raw.getAllKeys('s')).toEqual([])
  expect(report.nextExpiryMs).toBe(Infinity)
})
