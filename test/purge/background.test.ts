// The background purge in inline mode (Node: setTimeout; Chromium: requestIdleCallback).
import { afterEach, describe, expect, test, vi } from 'vitest'
import type { PurgeReport } from '../../src/index.js'
import { countOnDisk, freshDB, manualClock, uniqueName } from '../helpers.js'
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
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 10 } })
    await db.put('s', { id: 'dead' })
    await db.put('s', { id: 'keep', ttl: -1 })
    clock.advance(10_000)
    await db.setDefaultTtl('s', null)
    const reports: PurgeReport[] = []
    db.onPurge((r) => reports.push(r))
    await db.put('s', { id: 'probe' })
    // Let several background slices pass: they report nothing for a disabled store.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 15))
    expect(await db.raw.count('s')).toBe(3)
    expect(await db.get('s', 'dead')).toBeUndefined()
    expect(reports).toEqual([])
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
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 60_000, idleTimeoutMs: 20 } })
    const first = new Promise<PurgeReport>((resolve) => db.onPurge(resolve))
    await db.put('s', { id: 'long', ttl: 3600 })
    await until(async () => expect(db.isPurger).toBe(true))
    // Let the first slice run and go to sleep for the hour; the short write must cut that short.
    await new Promise((r) => setTimeout(r, 100))
    await db.put('s', { id: 'short', ttl: 1 })
    clock.advance(1_000)
    expect((await first).deleted).toBe(1)
    expect(await db.raw.getAllKeys('s')).toEqual(['long'])
  })

  test('close() leaves no timer or idle callback of the scheduler behind, and stops purging', async () => {
    tracker = trackTimers('src/scheduler')
    const clock = manualClock()
    const db = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 10 } })
    await db.put('s', { id: 'a' })
    await until(async () => expect(db.isPurger).toBe(true))
    await until(async () => expect(tracker!.created).toBeGreaterThan(2))
    db.close()
    expect(tracker.pending).toBe(0)
    clock.advance(20_000)
    await new Promise((r) => setTimeout(r, 50))
    expect(tracker.pending).toBe(0)
    expect(await countOnDisk(db.raw.name, 's')).toBe(1)
  })
})

test('without Web Locks every connection purges (only extra work)', async () => {
  const nav = (globalThis as { navigator?: Navigator }).navigator
  const had = nav && 'locks' in nav
  if (had) Object.defineProperty(nav, 'locks', { value: undefined, configurable: true })
  try {
    const clock = manualClock()
    const name = uniqueName('nolocks')
    const a = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 10 } }, name)
    const b = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 10 } }, name)
    expect(a.isPurger && b.isPurger).toBe(true)
    await a.putAll('s', Array.from({ length: 50 }, (_, i) => ({ id: i })))
    clock.advance(10_000)
    await until(async () => expect(await a.raw.count('s')).toBe(0))
    expect(await b.count('s')).toBe(0)
  } finally {
    if (had) delete (nav as { locks?: unknown }).locks
  }
})
