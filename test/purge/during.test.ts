// db.purgeDuring(event) (SPEC §10): in a service worker the purge runs inside the events the app
// hands it, under event.waitUntil, in bounded slices that the next event resumes. Here any
// object with waitUntil stands in for the event; in real service workers: test/browser/.
import { expect, test, vi } from 'vitest'
import { PurgeScheduler } from '../../src/background/scheduler.js'
import { freshDB, manualClock } from '../helpers.js'

const HOUR = 3_600_000

async function expiredOnDisk(count: number, purge: Record<string, number>) {
  const clock = manualClock()
  // A long sleep between slices: only purgeDuring can purge within the test.
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600 } }, purge: { mode: 'inline', maxIntervalMs: HOUR, idleTimeoutMs: HOUR, ...purge } })
  await db.putAll('s', [...Array.from({ length: count }, (_, id) => ({ id })), { id: 'live', ttl: -1 }])
  // The page entries load their background at the first idle callback and then elect: a wait for
  // an event that comes (10 s, as the other purge tests wait for it), not expect.poll's 1 s.
  await vi.waitFor(() => expect(db.isPurger).toBe(true), { timeout: 10_000, interval: 10 })
  // Nothing is due yet: this returns once any slice the writes started has ended. Otherwise a
  // tight budget can be spent waiting for that slice, which began before the clock moved and so
  // purges nothing (seen in WebKit on disk, where the slice was still running).
  await db.purgeDuring({ waitUntil() {} })
  expect(await db.raw.count('s')).toBe(count + 1)
  clock.advance(HOUR)
  return db
}

test('purgeDuring hands its work to event.waitUntil at once and purges what is due, now', async () => {
  const db = await expiredOnDisk(500, { batchSize: 50 })
  const waited: Promise<unknown>[] = []
  const purging = db.purgeDuring({ waitUntil: (promise) => waited.push(promise) })
  expect(waited).toEqual([purging])
  await purging
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})

test('a budget spent leaves the rest to the next event, which resumes', async () => {
  const db = await expiredOnDisk(3_000, { batchSize: 10, sliceMs: 1 })
  const event = { waitUntil() {} }
  await db.purgeDuring(event, 1)
  const left = await db.raw.count('s')
  expect(left).toBeGreaterThan(1)
  expect(left).toBeLessThan(3_001)
  await db.purgeDuring(event)
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})

test('with purge off, purgeDuring resolves at once and purgeExpired still works', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 1 } }, purge: { mode: 'off' } })
  await db.put('s', { id: 'a' })
  clock.advance(1_000)
  await db.purgeDuring({ waitUntil() {} })
  expect(await db.raw.count('s')).toBe(1)
  expect(await db.purgeExpired()).toBe(1)
})

test('a budget that is not a positive number of ms is refused, naming it; waitUntil still gets the promise', async () => {
  const db = await freshDB({ stores: { s: { keyPath: 'id', defaultTtl: 1 } }, purge: { mode: 'inline' } })
  for (const budget of [0, -1, Number.NaN, '10' as unknown as number]) {
    const waited: Promise<unknown>[] = []
    const purging = db.purgeDuring({ waitUntil: (promise) => waited.push(promise) }, budget)
    expect(waited).toEqual([purging])
    await expect(purging).rejects.toMatchObject({ name: 'TtlError', code: 'INVALID_OPTION', message: expect.stringContaining("purgeDuring's budgetMs") })
  }
})

test('purgeDuring without an event (none, a budget in its place, an object without waitUntil) is refused, naming the event, and purges nothing', async () => {
  const db = await expiredOnDisk(20, {})
  const purges = vi.spyOn(PurgeScheduler.prototype, 'during')
  try {
    for (const event of [undefined, null, 2000, {}, { waitUntil: true }]) {
      await expect(db.purgeDuring(event as never)).rejects.toMatchObject({ name: 'TtlError', code: 'INVALID_OPTION', message: expect.stringContaining('purgeDuring needs the service worker event') })
    }
    // No purge was begun (one begun with the call would have been by now: it starts within it).
    expect(purges).not.toHaveBeenCalled()
  } finally {
    purges.mockRestore()
  }
  expect(await db.raw.count('s')).toBe(21)
})

test('an event whose dispatch is over (waitUntil throws InvalidStateError) is refused with the reason, and nothing is purged unprotected', async () => {
  const db = await expiredOnDisk(20, {})
  const over = {
    waitUntil() {
      throw new DOMException("Failed to execute 'waitUntil' on 'ExtendableEvent': The event handler is already finished and no extend lifetime promises are outstanding.", 'InvalidStateError')
    },
  }
  const purges = vi.spyOn(PurgeScheduler.prototype, 'during')
  try {
    await expect(db.purgeDuring(over)).rejects.toMatchObject({ name: 'TtlError', code: 'INVALID_OPTION', message: expect.stringMatching(/can no longer be kept alive \(waitUntil threw InvalidStateError.*nothing was purged/) })
    expect(purges).not.toHaveBeenCalled()
  } finally {
    purges.mockRestore()
  }
  expect(await db.raw.count('s')).toBe(21)
  // The same event handed over in time purges.
  await db.purgeDuring({ waitUntil() {} })
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})
