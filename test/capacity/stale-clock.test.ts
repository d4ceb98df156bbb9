/**
 * A background purge batch judges expiry and capacity by the clock when it runs, not when its
 * pass started (SPEC §9: only live items count; §8: an expired item is reported 'expired'). The
 * app may move the clock and write between the two: the test makes that happen at the worst
 * moment, at the purge's first reading of the clock after the items were written, every time.
 */
import { expect, test } from 'vitest'
import type { ExpireEvent, TtlDB } from '../../src/index.js'
import { freshDB, manualClock } from '../helpers.js'
import { T0 } from '../semantics/support.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10, maxEntries: 2 } }

/**
 * Whether a reading of the clock is one a purge pass judges by: a batch's (`src/purge/`), or
 * the scheduler's as a slice starts (`run`), not its reading when it is woken or sets a timer.
 */
const judgedByPurge = () => {
  const frames = (new Error().stack ?? '').split('\n').slice(1)
  // The frame that read the clock, past this file and the connection's clock (src/rules/clock.ts).
  const reader = frames.find((frame) => !frame.includes('stale-clock.test') && !/rules[\\/]clock\.ts/.test(frame)) ?? ''
  return /src[\\/]purge[\\/]/.test(reader) || /\.run \(.*scheduler\.ts/.test(reader)
}

test('items that expired before the write that woke the pass are reported expired, and no live item is evicted', async () => {
  const clock = manualClock(T0)
  // The purge's next reading of the clock returns the time it reads, then the app moves the
  // clock 10 s and writes two more items: the pass's batches run after those writes.
  let then: ((db: TtlDB<any>) => Promise<unknown>) | undefined
  let written: Promise<unknown> | undefined
  const hooked = Object.assign(() => {
    const now = clock()
    if (then && judgedByPurge()) {
      const step = then
      then = undefined
      clock.advance(10_000)
      written = step(db)
    }
    return now
  }, { advance: clock.advance })
  const db: TtlDB<any> = await freshDB({ clock: hooked, stores, purge: { mode: 'inline', maxIntervalMs: 60_000 } })
  const heard: ExpireEvent[] = []
  db.onExpire((event) => heard.push(event))
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }])
  // The write woke the background purge (a capped store).
  then = (db) => db.putAll('s', [{ id: 'c' }, { id: 'd' }])
  const deadline = performance.now() + 10_000
  while (!written && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5))
  expect(written, "the writes made at the purge's reading of the clock").toBeDefined()
  await written
  // They wake it again; whichever pass runs now finds what is expired.
  while (heard.flatMap((event) => event.items).length < 2 && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
  const reported = heard.flatMap((event) => event.items.map((item) => `${String(item.key)}: ${event.reason}`)).sort()
  expect(reported).toEqual(['a: expired', 'b: expired'])
  expect((await db.getAll('s')).map((item) => item.id)).toEqual(['c', 'd'])
  expect(await db.raw.getAllKeys('s')).toEqual(['c', 'd'])
})
