// Quota relief's first step, the purge of the expired, runs code of the calls' chunk (handle/purge-now.ts).
// Where that chunk cannot load but the relief's can (offline, part of the app cached), relief must not
// count the purge as "no room" and evict live items while the expired stay (SPEC §9): the write is
// refused with its own error instead. Found by review of the 2026-12-06 evening merges.
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { smallDisk } from '../capacity/disk.js'
import { manualClock, uniqueName } from '../helpers.js'
import { chunks } from './loaders.js'

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i)

test('a full disk with expired items, the calls chunk failing to load: no live item is evicted', async () => {
  const { open, calls } = chunks()
  const clock = manualClock()
  const name = uniqueName()
  const db = await open(name, { clock, purge: { mode: 'inline' }, stores: { cache: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } } })
  smallDisk(10)
  await db.putAll('cache', ids(0, 5).map((id) => ({ id }))) // the oldest, and live
  clock.advance(1_000)
  await db.putAll('cache', ids(5, 5).map((id) => ({ id, ttl: 1 })))
  clock.advance(1_000)
  for (let i = 0; i < 10; i++) calls.failNext(new TypeError('Failed to fetch dynamically imported module'))
  await db.putAll('cache', ids(10, 3).map((id) => ({ id }))).catch((e: unknown) => expect(e).toMatchObject({ name: 'QuotaExceededError' }))
  const live = await db.raw.getAllKeys('cache')
  // The live items 0..4 kept: the write either waited for both chunks or was refused.
  expect(live.filter((k) => (k as number) < 5)).toEqual(ids(0, 5))
  db.close()
  await deleteDB(name)
})
