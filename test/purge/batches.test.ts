// Purge batches resume where the last one stopped, without skipping items whose marks tie.
import { unwrap } from 'idb'
import { expect, test, vi } from 'vitest'
import { purgeBatch, purgeSlice, purgeStore, type Courtesy } from '../../src/purge/purge.js'
import { markAbove } from '../../src/layout/purge-ranges.js'
import { openTtlDB } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'

/** Full batches that never grow to finish their second: batches that stop inside one. */
const UNGROWN: Courtesy = { batchSize: (n) => n, pause: async () => {} }

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
  expect(await purgeStore(async () => unwrap(db.raw), 's', clock, 100, UNGROWN)).toBe(250)
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})

test('a batch the app is not waiting behind finishes its second, up to IDLE_GROWTH × batchSize, and the next starts past it', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 5 } } })
  // Three seconds of tied items: 250, 500, then one.
  await db.putAll('s', Array.from({ length: 250 }, (_, i) => ({ id: `a${i}` })))
  clock.advance(1_000)
  await db.putAll('s', Array.from({ length: 500 }, (_, i) => ({ id: `b${i}` })))
  clock.advance(1_000)
  await db.put('s', { id: 'c' })
  clock.advance(5_000)
  const [a, b] = await Promise.all(['a0', 'b0'].map(async (key) => (await db.raw.get('s', key)).$ttl as number))
  const connect = async () => unwrap(db.raw)
  const dead = (from: object | undefined, finish: number) => purgeBatch(connect, 's', clock(), { batchSize: 100, finish, from, withValues: true })
  const first = await dead(undefined, 300)
  // The whole first second (250: 100, then the 150 after the last of them), values lined up with keys.
  expect(first).toMatchObject({ deleted: 250, resume: { inherit: markAbove(a) } })
  // Just above: no number lies between a mark and the next.
  for (const mark of [a, -a, 0]) expect([mark, markAbove(mark)]).toContain((mark + markAbove(mark)) / 2)
  expect(markAbove(-a)).toBeGreaterThan(-a)
  expect(first.items.every(({ key, value }) => (value as { id: string }).id === key && String(key).startsWith('a'))).toBe(true)
  // 500 tied: 100 and 300 more, the most it grows; the rest is left to the next batch, which starts at that second.
  const second = await dead(first.resume, 300)
  expect(second).toMatchObject({ deleted: 400, resume: { inherit: b } })
  expect(new Set(second.items.map(({ key }) => String(key)[0]))).toEqual(new Set(['b']))
  const third = await dead(second.resume, 300)
  expect(third).toMatchObject({ deleted: 100, resume: { inherit: markAbove(b) } })
  expect(new Set([...second.items, ...third.items].map(({ key }) => key)).size).toBe(500)
  expect(await dead(third.resume, 300)).toMatchObject({ deleted: 1, items: [{ key: 'c' }], resume: {} })
  expect(await db.raw.count('s')).toBe(0)
})

test('a slice that resumes in the own-ttl range still takes inheriting items that died since', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 20 } } })
  await db.putAll('s', Array.from({ length: 4 }, (_, i) => ({ id: `own-${i}`, ttl: 5 })))
  await db.put('s', { id: 'inherits' })
  clock.advance(5_000)
  const resume = new Map()
  const options = { batchSize: 2, sliceMs: 0, courtesy: UNGROWN }
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

/** Counts reads of the metadata store (the settings) while `run` runs. */
/** Batches of one key; at the first pause between two, `between` runs. */
function batchesOfOne(between: () => Promise<unknown>): Courtesy {
  let paused = false
  return {
    batchSize: () => 1,
    async pause() {
      if (paused) return
      paused = true
      await between()
    },
  }
}

test('each batch of a pass at one instant judges by the settings when it runs: a longer default set meanwhile by a tab whose clock is behind keeps what it gives time', async () => {
  const clock = manualClock()
  const name = uniqueName('batch-settings')
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }])
  const passAt = clock.now + 20_000
  // Another tab, its clock an hour behind: what the 10-second default had killed by its time
  // (nothing) stays dead; under an hour's default, 'a' and 'b' live on at the pass's instant.
  const behind = manualClock(clock.now - 3_600_000)
  const tab = await openTtlDB(name, { version: 1, clock: behind, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
  try {
    const courtesy = batchesOfOne(() => tab.setDefaultTtl('s', 3600))
    // Judged at one instant: the first batch takes 'a' (dead under the 10-second default), the next none.
    expect(await purgeStore(async () => unwrap(db.raw), 's', () => passAt, 1, courtesy)).toBe(1)
    expect(await db.raw.getAllKeys('s')).toEqual(['b'])
  } finally {
    tab.close()
  }
})

test('a batch judged at a later instant than the last reads the settings again: an item given more time since is kept', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
  await db.put('s', { id: 'a' })
  clock.advance(5_000)
  await db.put('s', { id: 'b' })
  clock.advance(5_000)
  // 'a' is dead; 'b' has 5 s left. Between the two batches the default grows and the clock
  // moves past the old end of 'b', which the settings read for the first batch would judge dead.
  const courtesy = batchesOfOne(async () => {
    await db.setDefaultTtl('s', 1000)
    clock.advance(6_000)
  })
  expect(await purgeStore(async () => unwrap(db.raw), 's', clock, 1, courtesy)).toBe(1)
  expect(await db.raw.getAllKeys('s')).toEqual(['b'])
})
