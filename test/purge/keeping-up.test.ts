// A busy page's purge keeps up with the writes it is paired with: dead items on disk stay bounded.
import { expect, test } from 'vitest'
import { freshDB, manualClock } from '../helpers.js'
import { timersOnClock } from './timers.js'

const WRITES_PER_SECOND = 100
const SECONDS = 8
/** The default: slices on a page that is never idle come this far apart, unless one is left behind. */
const IDLE_TIMEOUT_MS = 2000

test('a page that is never idle, writing 100 items a second that live 1 s, keeps dead items on disk bounded', async () => {
  const clock = manualClock()
  // The purge's waits (idle callbacks that come only at their timeout, the scheduler's sleeps) run
  // on the injected clock: the writes and the slices meet in clock time, whatever the machine's load.
  const waits = timersOnClock('src/background/scheduler', clock)
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 1 } }, purge: { mode: 'inline', idleTimeoutMs: IDLE_TIMEOUT_MS } })
  const interval = 1000 / WRITES_PER_SECOND
  const dead: number[] = []
  try {
    for (let i = 0; i < WRITES_PER_SECOND * SECONDS; i++) {
      await db.put('s', { id: i })
      clock.advance(interval)
      // A slice (or the purge's first load) that fell due runs to its end, which sets its next wait.
      for (let next = waits.next(); waits.runDue() > 0; next = waits.next()) await next
      if (i % 25 === 0) dead.push((await db.raw.count('s')) - (await db.count('s')))
    }
  } finally {
    db.close()
    waits.restore()
  }
  // What piles up while a slice waits for an idle moment (items live 1 s) …
  expect(Math.max(...dead)).toBeLessThanOrEqual(WRITES_PER_SECOND * (IDLE_TIMEOUT_MS / 1000 + 1))
  // … is cleared before the next wait: the backlog does not carry over and grow.
  expect(Math.min(...dead.slice(dead.length / 2))).toBeLessThanOrEqual(WRITES_PER_SECOND / 4)
}, 30_000)
