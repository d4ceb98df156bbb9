// The scheduler against a stand-in purger: merging, failure reports, back-off, and the trim interval of capped stores.
import { afterEach, describe, expect, test, vi } from 'vitest'
import { PurgeScheduler } from '../../src/background/scheduler.js'
import type { PurgeReport } from '../../src/events/reports.js'
import type { PurgeApi, SliceReport } from '../../src/background/worker/api.js'
import type { PurgeClock } from '../../src/purge/purge.js'
import { manualClock, SOON, uniqueName } from '../helpers.js'
import { ensureLocks } from './stubs.js'
import { timersOnClock, trackTimers } from './timers.js'

const report = (over: Partial<SliceReport> = {}): SliceReport => ({
  store: 's', deleted: 0, evicted: 0, capped: false, durationMs: 1, more: false, nextExpiryMs: Infinity, defaultTtl: 10, ...over,
})

/** A purger whose slices run `slice`, judged as a slice's first batch is: at the clock's reading then. */
function fakePurger(slice: (nowMs: number) => Promise<SliceReport[]>): PurgeApi & { calls: number } {
  const purger = {
    calls: 0,
    slice: async (clock: PurgeClock) => (purger.calls++, slice(typeof clock === 'number' ? clock : await clock())),
    purgeAll: async () => 0,
    close: async () => {},
  }
  return purger
}

test('a failing slice is reported with its error name and retried', async () => {
  const clock = manualClock()
  let failures = 3
  const purger = fakePurger(async () => {
    if (failures-- > 0) throw Object.assign(new Error('disk full'), { name: 'QuotaExceededError' })
    return [report({ deleted: 5 })]
  })
  const reports: PurgeReport[] = []
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 5, idleTimeoutMs: 5, onReport: (r) => reports.push(r) })
  await vi.waitFor(() => expect(reports.some((r) => r.deleted === 5)).toBe(true), { timeout: 15_000, interval: 5 })
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
  const tracker = trackTimers('src/background/scheduler')
  restore.push(() => tracker.restore())
  const clock = manualClock()
  const purger = fakePurger(async (nowMs) => [report({ more: purger.calls < 3, nextExpiryMs: nowMs + 30_000 })])
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 5, onReport: () => {} })
  // The third slice's end sets the sleep: the scheduler's one wait then, 30 s of the clock away.
  await vi.waitFor(() => expect(tracker.delays.at(-1)).toBe(30_000), SOON)
  expect(purger.calls).toBe(3)
  expect(tracker.pending).toBe(1)
  scheduler.stop()
})

test('writes during a slice start no slice after it: it sleeps until the first of them dies, sooner than its own next expiry', async () => {
  const tracker = trackTimers('src/background/scheduler')
  restore.push(() => tracker.restore())
  const clock = manualClock()
  let release!: () => void
  const purger = fakePurger(async (nowMs) => {
    // The second slice runs while a stream of writes comes in (the first taught the store's default).
    if (purger.calls === 2) await new Promise<void>((resolve) => (release = resolve))
    return [report({ nextExpiryMs: nowMs + 30_000 })]
  })
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 5, onReport: () => {} })
  restore.unshift(() => scheduler.stop())
  await vi.waitFor(() => expect(tracker.delays.at(-1)).toBe(30_000), SOON)
  scheduler.soon()
  await vi.waitFor(() => expect(release).toBeDefined(), SOON)
  // Items of ttl 20 s, then 15 s: the first written to die goes at its second's start + 15 s.
  for (const ttl of [20, 15, 20]) scheduler.noteWrite('s', [ttl], clock.now)
  release()
  const firstDeath = (Math.floor(clock.now / 1000) + 15) * 1000
  await vi.waitFor(() => expect(tracker.delays.at(-1)).toBe(firstDeath - clock.now), SOON)
  expect(purger.calls).toBe(2)
  expect(tracker.pending).toBe(1)
})

let restore: (() => void)[] = []
afterEach(() => restore.splice(0).forEach((undo) => undo()))

const tick = () => new Promise((resolve) => setTimeout(resolve, 0))

test('requests for a slice do not cut a back-off short: the retry waits its full delay', async () => {
  const clock = manualClock()
  // The back-off's sleep and the idle callbacks on the clock: its full delay is counted in clock
  // time, without sleeping through it.
  const waits = timersOnClock('src/background/scheduler', clock)
  restore.push(() => waits.restore())
  const purger = fakePurger(async () => {
    throw Object.assign(new Error('no worker'), { name: 'PurgeWorkerError' })
  })
  const asked = waits.next()
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 5, onReport: () => {} })
  restore.unshift(() => scheduler.stop())
  // Runs the one wait due now, up to the next one it leads to (a slice sets one as it ends).
  const runTheDueWait = async () => {
    const next = waits.next()
    expect(waits.runDue()).toBe(1)
    await next
  }
  await asked
  clock.advance(5)
  await runTheDueWait()
  expect(purger.calls).toBe(1)
  // Where Web Locks are, the failed purger went to the back of the lock's queue: it backs off
  // again (from the same moment of the clock) once the lock is back.
  await vi.waitFor(() => expect(scheduler.isLeader).toBe(true), SOON)
  const failedAt = clock.now
  // Writes keep asking, as every put does, until the retry comes: the first back-off step is 1 s.
  for (let t = 10; t < 1000; t += 10) {
    clock.set(failedAt + t)
    scheduler.soon()
    scheduler.noteWrite('s', [1], clock.now)
    expect(waits.runDue(), `${t} ms into the back-off`).toBe(0)
  }
  clock.set(failedAt + 1000)
  await runTheDueWait()
  clock.advance(5)
  await runTheDueWait()
  expect(purger.calls).toBe(2)
})

test('on a page that is never idle, the first slice comes after idleTimeoutMs however often writes ask', async () => {
  const clock = manualClock()
  // Idle callbacks that come only at their timeout, on the clock: counted in clock time, not in
  // the real time a loaded machine stretches.
  const waits = timersOnClock('src/background/scheduler', clock)
  restore.push(() => waits.restore())
  const purger = fakePurger(async () => [report()])
  const asked = waits.next()
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 200, onReport: () => {} })
  restore.unshift(() => scheduler.stop())
  await asked
  const start = clock.now
  for (let t = 20; t < 200; t += 20) {
    clock.set(start + t)
    scheduler.soon()
    scheduler.noteWrite('s', [1], clock.now)
    expect(waits.runDue(), `${t} ms on`).toBe(0)
  }
  clock.set(start + 200)
  const slept = waits.next()
  expect(waits.runDue()).toBe(1)
  await slept
  expect(purger.calls).toBe(1)
})

test('a slice failing after stop() reports nothing', async () => {
  const clock = manualClock()
  let fail!: () => void
  const failed = new Promise<never>((_, reject) => (fail = () => reject(Object.assign(new Error('terminated'), { name: 'PurgeWorkerError' }))))
  failed.catch(() => {})
  const purger = fakePurger(() => failed)
  const reports: PurgeReport[] = []
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 5, onReport: (r) => reports.push(r) })
  await vi.waitFor(() => expect(purger.calls).toBe(1), { timeout: 5000, interval: 5 })
  scheduler.stop()
  fail()
  await failed.catch(tick)
  expect(reports).toEqual([])
})

test.for([
  { name: 'more to do', more: true },
  { name: 'asleep until the next expiry', more: false },
])('stop() from inside a report listener leaves no timer behind ($name)', async ({ more }) => {
  const tracker = trackTimers('src/background/scheduler')
  restore.push(() => tracker.restore())
  const clock = manualClock()
  const purger = fakePurger(async (nowMs) => [report({ deleted: 1, more, nextExpiryMs: nowMs + 60_000 })])
  let stopped = false
  const scheduler: PurgeScheduler = new PurgeScheduler(purger, uniqueName('lock'), {
    clock,
    maxIntervalMs: 60_000,
    idleTimeoutMs: 5,
    onReport: () => {
      scheduler.stop()
      stopped = true
    },
  })
  await vi.waitFor(() => expect(stopped).toBe(true), { timeout: 5000, interval: 5 })
  await tick()
  expect(tracker.pending).toBe(0)
})

test('a maxIntervalMs beyond what setTimeout can take sleeps as long as it can, not 0 ms', async () => {
  const tracker = trackTimers('src/background/scheduler')
  restore.push(() => tracker.restore())
  const clock = manualClock()
  const purger = fakePurger(async () => [report({ nextExpiryMs: Infinity })])
  const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 2 ** 31 + 1000, idleTimeoutMs: 5, onReport: () => {} })
  await vi.waitFor(() => expect(purger.calls).toBe(1), { timeout: 5000, interval: 5 })
  await tick()
  scheduler.stop()
  expect(tracker.delays.at(-1)).toBe(2 ** 31 - 1)
})

test('a purger whose slices fail hands the lock to a connection waiting for it', async () => {
  restore.push(ensureLocks())
  const clock = manualClock()
  const lock = uniqueName('lock')
  let fail!: () => void
  const failed = new Promise<void>((resolve) => (fail = resolve))
  const failing = fakePurger(async () => {
    await failed
    throw Object.assign(new Error('no worker'), { name: 'PurgeWorkerError' })
  })
  const working = fakePurger(async () => [report()])
  const options = { clock, maxIntervalMs: 60_000, idleTimeoutMs: 5, onReport: () => {} }
  const first = new PurgeScheduler(failing, lock, options)
  await vi.waitFor(() => expect(failing.calls).toBe(1), SOON)
  // The second connection waits for the lock before the first slice fails: the failure hands it
  // over then, not after the first back-off's retry.
  const second = new PurgeScheduler(working, lock, options)
  await vi.waitFor(async () => expect((await navigator.locks.query()).pending?.map((l) => l.name)).toContain(lock), SOON)
  fail()
  await vi.waitFor(() => expect(working.calls).toBe(1), SOON)
  expect(failing.calls).toBe(1)
  expect(second.isLeader).toBe(true)
  expect(first.isLeader).toBe(false)
  first.stop()
  second.stop()
})

describe('writes to a capped store wake a trim at most once a second', () => {
  /**
   * A scheduler of one capped store `c` whose waits run on the clock (`timersOnClock`), after its
   * first slice; `duringSlice` runs inside the second. `settle` runs the waits the clock has
   * reached and the slices they start, to their end (a few rounds: a scheduler that kept waking
   * at once would loop in microtasks, which no test timeout could end).
   */
  async function cappedScheduler(duringSlice: () => void = () => {}, onReport: (report: PurgeReport) => void = () => {}) {
    const clock = manualClock()
    const waits = timersOnClock('src/background/scheduler', clock)
    restore.push(() => waits.restore())
    const purger = fakePurger(async () => {
      if (purger.calls === 2) duringSlice()
      // The second slice evicts one item: its report reaches the listeners.
      return [report({ store: 'c', capped: true, deleted: purger.calls === 2 ? 1 : 0 })]
    })
    const settle = async () => {
      for (let next = waits.next(), rounds = 0; waits.runDue() > 0; next = waits.next()) {
        if (++rounds > 5) throw new Error('the scheduler keeps waking without the clock moving')
        await next
      }
    }
    const asked = waits.next()
    const scheduler = new PurgeScheduler(purger, uniqueName('lock'), { clock, maxIntervalMs: 60_000, idleTimeoutMs: 0, onReport })
    // Stopped before the real timers are back: its pending wait is one of `waits`.
    restore.unshift(() => scheduler.stop())
    await asked
    // The first slice ends no earlier than this (real time, which the trim's wait counts in).
    const beforeSlice = performance.now()
    await settle()
    expect(purger.calls).toBe(1)
    return { clock, waits, purger, scheduler, settle, beforeSlice }
  }

  test('writes just after a slice: the trim comes a second after it ended, not at once', async () => {
    const { clock, waits, purger, scheduler, settle, beforeSlice } = await cappedScheduler()
    for (let i = 0; i < 5; i++) scheduler.noteWrite('c', [undefined], clock.now)
    // The wait counts from the slice's end in real time (which the clock does not move): at most
    // this much of it had passed when the writes came.
    const spent = Math.ceil(performance.now() - beforeSlice)
    const writtenAt = clock.now
    clock.set(writtenAt + 1000 - spent - 1)
    expect(waits.runDue()).toBe(0)
    clock.set(writtenAt + 1000)
    await settle()
    expect(purger.calls).toBe(2)
  })

  /**
   * A write noted by `where` (inside the second slice, or in a listener of its report): the trim
   * slice comes a second of the clock after that slice, not sooner and not later.
   */
  async function trimsASecondAfter(where: 'during' | 'listener') {
    let scheduler!: PurgeScheduler
    let clock!: ReturnType<typeof manualClock>
    const write = () => scheduler.noteWrite('c', [undefined], clock.now)
    const capped = await (where === 'during' ? cappedScheduler(write) : cappedScheduler(() => {}, write))
    ;({ scheduler, clock } = capped)
    const { waits, purger, settle } = capped
    const ended = waits.next()
    scheduler.soon()
    await settle()
    await ended
    expect(purger.calls).toBe(2)
    clock.advance(999)
    expect(waits.runDue()).toBe(0)
    clock.advance(1)
    await settle()
    expect(purger.calls).toBe(3)
  }

  test('a write during a slice: the trim comes a second after the slice', () => trimsASecondAfter('during'))

  test("a write in a listener of the slice's report: the trim comes a second after the slice, not at the next expiry", () => trimsASecondAfter('listener'))
})
