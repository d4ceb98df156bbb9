import { expect, test } from 'vitest'
import { freshDB, manualClock } from './helpers.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

test('iterate yields live items in key order across pages, skipping expired ones', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  await db.putAll('s', Array.from({ length: 25 }, (_, i) => ({ id: i, ttl: i % 2 ? 100 : undefined })))
  clock.advance(10_000)
  const seen: number[] = []
  for await (const item of db.iterate('s', null, 4)) {
    // Awaiting other work between items is allowed: each page is its own transaction.
    await db.put('s', { id: -1 - (item.id as number), ttl: 5 })
    seen.push(item.id as number)
  }
  expect(seen).toEqual(Array.from({ length: 12 }, (_, i) => 2 * i + 1))
})

test('iterate honours a key range and its open upper bound', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  await db.putAll('s', Array.from({ length: 10 }, (_, i) => ({ id: i })))
  const ids: number[] = []
  for await (const item of db.iterate('s', IDBKeyRange.bound(2, 7, false, true), 2)) ids.push(item.id as number)
  expect(ids).toEqual([2, 3, 4, 5, 6])
  const single: unknown[] = []
  for await (const item of db.iterate('s', 4, 2)) single.push(item.id)
  expect(single).toEqual([4])
})

test.for([
  { name: 'only(k), page of one', range: () => IDBKeyRange.only(4), pageSize: 1, ids: [4] },
  { name: 'closed upper bound ending a full page', range: () => IDBKeyRange.bound(2, 5), pageSize: 2, ids: [2, 3, 4, 5] },
  { name: 'upper bound alone', range: () => IDBKeyRange.upperBound(1), pageSize: 1, ids: [0, 1] },
])('iterate stops cleanly when a full page ends on the upper bound ($name)', async ({ range, pageSize, ids }) => {
  const db = await freshDB({ clock: manualClock(), stores })
  await db.putAll('s', Array.from({ length: 10 }, (_, i) => ({ id: i })))
  const seen: unknown[] = []
  for await (const item of db.iterate('s', range(), pageSize)) seen.push(item.id)
  expect(seen).toEqual(ids)
})
