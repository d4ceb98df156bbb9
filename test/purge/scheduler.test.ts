// The scheduler against a stand-in purger: merging, failure reports and back-off.
import { expect, test, vi } from 'vitest'
import { PurgeScheduler, type PurgeReport } from '../../src/scheduler.js'
import type { PurgeApi, SliceReport } from '../../src/worker/api.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'

const report = (over: Partial<SliceReport> = {}): SliceReport => ({
  store: 's', deleted: 0, durationMs: 1, more: false, nextExpiryMs: Infinity, defaultTtl: 10, ...over,
})

function fakePurger(slice: (nowMs: number) => Promise<SliceReport[]>): PurgeApi & { calls: number } {
  const purger = {
    calls: 0,
    slice: (nowMs: number) => (purger.calls++, slice(nowMs)),
    purgeAll: async () => 0,
    close: async () => {},
  }
  return purger
}

test('a failing slice is reported with its error name, retried, and user requests still succeed', async () => {
  const clock = manualClock()
  let failures = 3
  const purger = fakePurger(async () => {
    if (failures-- > 0) throw Object.assign(new Error('disk full'), { name: 'QuotaExceededError' })
    return [report({ deleted: 5 })]
  })
  const reports: PurgeReport[] = []
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 5, idleTimeoutMs: 5, onReport: (r) => reports.push(r) })
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
  await vi.waitFor(() => expect(reports.some((r) => r.deleted === 5)).toBe(true), { timeout: 5000, interval: 5 })
  await db.put('s', { id: 1 })
  expect(await db.get('s', 1)).toMatchObject({ id: 1 })
  scheduler.stop()
  const errors = reports.filter((r) => r.error)
  expect(errors).toHaveLength(3)
  expect(errors[0]).toMatchObject({ store: '*', deleted: 0, error: { name: 'QuotaExceededError', message: 'disk full' } })
})

test('overlapping requests merge: one slice at a time, and one rerun after it', async () => {
  const clock = manualClock()
  let running = 0
  let maxRunning = 0
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const purger = fakePurger(async () => {
    running++
    maxRunning = Math.max(maxRunning, running)
    if (purger.calls === 1) await gate
    running--
    return [report()]
  })
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 5, onReport: () => {} })
  await vi.waitFor(() => expect(purger.calls).toBe(1), { timeout: 5000, interval: 5 })
  for (let i = 0; i < 5; i++) scheduler.soon()
  release()
  await vi.waitFor(() => expect(purger.calls).toBe(2), { timeout: 5000, interval: 5 })
  scheduler.stop()
  expect(maxRunning).toBe(1)
})

test('a slice with more to do is followed at once; one with none sleeps until the next expiry', async () => {
  const clock = manualClock()
  const nowAtCall: number[] = []
  const purger = fakePurger(async (nowMs) => {
    nowAtCall.push(nowMs)
    return [report({ more: purger.calls < 3, nextExpiryMs: nowMs + 60_000 })]
  })
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 5, onReport: () => {} })
  await vi.waitFor(() => expect(purger.calls).toBe(3), { timeout: 5000, interval: 5 })
  await new Promise((r) => setTimeout(r, 50))
  expect(purger.calls).toBe(3)
  scheduler.stop()
})
