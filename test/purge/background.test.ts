// The background purge in inline mode (Node: setTimeout; Chromium: requestIdleCallback).
import { afterEach, describe, expect, test, vi } from 'vitest'
import type { PurgeReport } from '../../src/index.js'
import { countOnDisk, freshDB, manualClock, SOON, uniqueName } from '../helpers.js'
import { trackTimers } from './timers.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10 }, off: { keyPath: 'id' } }
const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 10 })

let tracker: ReturnType<typeof trackTimers> | undefined
afterEach(() => tracker?.restore())

describe('background purge (inline)', () => {
  test('expired items leave the disk with no purgeExpired call; live ones stay', async () => {
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 10 } })
    const reports: PurgeReport[] = []
    db.onPurge((r) => reports.push(r))
    await db.putAll('s', Array.from({ length: 30 }, (_, i) => ({ id: i, ttl: i % 3 === 0 ? -1 : undefined })))
    await db.put('s', { id: 'own', ttl: 100 })
    clock.advance(10_000)
    await until(async () => expect(await db.raw.count('s')).toBe(11))
    expect((await db.raw.getAllKeys('s')).sort()).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 'own'].sort())
    await until(async () => expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(20))
    expect(reports.every((r) => r.store === 's' && r.durationMs >= 0 && !r.error)).toBe(true)
  })

  test('a store with TTL off is not purged in the background, even of items dead before', async () => {
    // Two clocks: the writer's runs ahead, so 'dead' dies (by the watermark the change leaves)
    // only as TTL goes off, and the purger never saw it dead before.
    const clock = manualClock()
    const purgerClock = manualClock()
    const name = uniqueName('off')
    const twoStores = { s: { keyPath: 'id', defaultTtl: 10 }, probe: { keyPath: 'id', defaultTtl: 10 } }
    const purger = await freshDB({ clock: purgerClock, stores: twoStores, purge: { mode: 'inline', maxIntervalMs: 10 } }, name)
    const db = await freshDB({ clock, stores: twoStores }, name)
    const reports: PurgeReport[] = []
    purger.onPurge((r) => reports.push(r))
    await db.put('s', { id: 'dead' })
    await db.put('s', { id: 'keep', ttl: -1 })
    clock.advance(10_000)
    await db.setDefaultTtl('s', null)
    await db.put('probe', { id: 'p', ttl: 1 })
    purgerClock.advance(11_000)
    // The slice that purged the probe, written after TTL went off, went over 's' too.
    await until(async () => expect(reports).toContainEqual(expect.objectContaining({ store: 'probe', deleted: 1 })))
    expect(reports.filter((r) => r.store === 's')).toEqual([])
    expect(await db.raw.count('s')).toBe(2)
    expect(await db.get('s', 'dead')).toBeUndefined()
    expect(await db.purgeExpired('s')).toBe(1)
  })

  test('a change of default wakes the purge for what it made expired', async () => {
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 60_000 } })
    await db.putAll('s', [{ id: 1 }, { id: 2 }])
    clock.advance(3_000)
    await db.setDefaultTtl('s', 2)
    await until(async () => expect(await db.raw.count('s')).toBe(0))
  })

  test('a write due sooner than the planned wake-up pulls it forward', async () => {
    tracker = trackTimers('src/background/scheduler', true)
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 60_000, idleTimeoutMs: 20 } })
    const first = new Promise<PurgeReport>((resolve) => db.onPurge(resolve))
    await db.put('s', { id: 'long', ttl: 3600 })
    // The first slice has run and gone to sleep for the hour (maxIntervalMs at most); the short
    // write must cut that short.
    await until(async () => {
      expect(tracker!.pending).toBe(1)
      expect(tracker!.delays.at(-1)).toBe(60_000)
    })
    await db.put('s', { id: 'short', ttl: 1 })
    clock.advance(1_000)
    expect((await first).deleted).toBe(1)
    expect(await db.raw.getAllKeys('s')).toEqual(['long'])
  })

  test('a keepTs write of an item already expired (its own _ts) wakes the sleeping purger', { timeout: 15_000 }, async () => {
    const clock = manualClock()
    const mirror = { m: { keyPath: 'id', defaultTtl: 3600, keepTs: true } }
    const db = await freshDB({ clock, stores: mirror, purge: { mode: 'inline', maxIntervalMs: 60_000 } })
    const reports: PurgeReport[] = []
    db.onPurge((r) => reports.push(r))
    await db.put('m', { id: 'first', ttl: 1 })
    clock.advance(1_000)
    await until(async () => expect(reports).toHaveLength(1))
    // The purger sleeps now, for a minute (nothing left expires sooner). A copy of a document
    // whose server _ts is an hour old is dead as it lands; before, the wake-up counted its hour
    // from now, so it stayed on disk until the purger's next check.
    await db.put('m', { id: 'copy', _ts: clock.now / 1000 - 3600 })
    expect(await db.get('m', 'copy')).toBeUndefined()
    await until(async () => expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(2))
    expect(await db.raw.count('m')).toBe(0)
  })

  test('close() leaves no timer or idle callback of the scheduler behind, and stops purging', async () => {
    tracker = trackTimers('src/background/scheduler', true)
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 10 } })
    await db.put('s', { id: 'a' })
    await until(async () => expect(db.isPurger).toBe(true))
    // Closed while the scheduler waits (its one timer or idle callback pending), not mid-slice:
    // no slice is under way that could set a wait after close().
    await until(async () => {
      expect(tracker!.created).toBeGreaterThan(2)
      expect(tracker!.pending).toBe(1)
    })
    const name = db.raw.name
    db.close()
    expect(tracker.pending).toBe(0)
    // Nothing is left to run a slice: the item, dead by the clock, stays on the disk.
    clock.advance(20_000)
    expect(await countOnDisk(name, 's')).toBe(1)
  })
  test('close() from inside an onPurge listener leaves no timer or idle callback of the scheduler behind', async () => {
    tracker = trackTimers('src/background/scheduler')
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 60_000 } })
    const reports: PurgeReport[] = []
    db.onPurge((r) => reports.push(r))
    await db.put('s', { id: 'first', ttl: 1 })
    clock.advance(1_000)
    await until(async () => expect(reports).toHaveLength(1))
    // The purge sleeps now (until the next expiry or 60 s); the next slice closes the handle.
    let closed = false
    db.onPurge(() => {
      db.close()
      closed = true
    })
    await db.put('s', { id: 'second', ttl: 1 })
    clock.advance(1_000)
    await until(async () => expect(closed).toBe(true))
    await new Promise((resolve) => setTimeout(resolve, 0))
    expect(tracker.pending).toBe(0)
  })
})

test('without Web Locks every connection purges (only extra work)', async () => {
  const nav = (globalThis as { navigator?: Navigator }).navigator
  const had = nav && 'locks' in nav
  if (had) Object.defineProperty(nav, 'locks', { value: undefined, configurable: true })
  try {
    // A clock each: what is dead to one connection is not yet dead to the other, so each
    // deletion tells which connection purged.
    const clockA = manualClock()
    const clockB = manualClock()
    const name = uniqueName('nolocks')
    const a = await freshDB({ clock: clockA, stores, purge: { mode: 'inline', maxIntervalMs: 10 } }, name)
    const b = await freshDB({ clock: clockB, stores, purge: { mode: 'inline', maxIntervalMs: 10 } }, name)
    await vi.waitFor(() => expect(a.isPurger && b.isPurger).toBe(true), SOON)
    const byA: PurgeReport[] = []
    const byB: PurgeReport[] = []
    a.onPurge((r) => byA.push(r))
    b.onPurge((r) => byB.push(r))
    await a.putAll('s', [{ id: 'early', ttl: 5 }, { id: 'late', ttl: 20 }])
    clockA.advance(5_000)
    await until(async () => expect(byA).toEqual([expect.objectContaining({ deleted: 1 })]))
    clockB.advance(20_000)
    await until(async () => expect(byB).toEqual([expect.objectContaining({ deleted: 1 })]))
    expect(await a.raw.count('s')).toBe(0)
  } finally {
    if (had) delete (nav as { locks?: unknown }).locks
  }
})
