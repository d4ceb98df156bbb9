// User requests go first: the purge pauses between batches while the app is busy, boundedly.
import { unwrap } from 'idb'
import { expect, test, vi } from 'vitest'
import { BUSY_BATCH_SIZE, MAX_PAUSE_MS, QUIET_MS, RECENT_MS, UserActivity } from '../../src/activity.js'
import { purgeStore } from '../../src/purge.js'
import { freshDB, manualClock } from '../helpers.js'

/** A UserActivity on a fake clock; each wait moves it 1 ms and may run `during`. */
function fakeActivity(during: (activity: UserActivity) => void = () => {}) {
  let now = 0
  let waits = 0
  const activity: UserActivity = new UserActivity(
    () => now,
    async () => {
      waits++
      now += 1
      during(activity)
    },
  )
  return { activity, waits: () => waits, advance: (ms: number) => void (now += ms) }
}

test('with no request lately the purge takes full batches and never pauses', async () => {
  const { activity, waits, advance } = fakeActivity()
  await activity.pause()
  expect(waits()).toBe(0)
  expect(activity.batchSize(300)).toBe(300)
  activity.note()
  advance(RECENT_MS + 1)
  await activity.pause()
  expect(waits()).toBe(0)
  expect(activity.batchSize(300)).toBe(300)
})

test('after a request, batches are small and a pause lasts until the app has been quiet for QUIET_MS', async () => {
  const { activity, waits } = fakeActivity()
  activity.note()
  expect(activity.batchSize(300)).toBe(BUSY_BATCH_SIZE)
  expect(activity.batchSize(10)).toBe(10)
  await activity.pause()
  expect(waits()).toBe(QUIET_MS)
})

test('under constant requests a pause ends after MAX_PAUSE_MS: the purge slows, never stops', async () => {
  const { activity, waits } = fakeActivity((a) => a.note())
  activity.note()
  await activity.pause()
  expect(waits()).toBe(MAX_PAUSE_MS)
})

test('the purge asks for its batch size each batch and pauses between batches, not before the first', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 1 } } })
  await db.putAll('s', Array.from({ length: 250 }, (_, i) => ({ id: i })))
  clock.advance(1_000)
  const courtesy = { batchSize: vi.fn(() => 100), pause: vi.fn(async () => {}) }
  expect(await purgeStore(async () => unwrap(db.raw), 's', clock, 300, courtesy)).toBe(250)
  // Three batches of 100, 100 and 50, then the sweep from the start that ends a resumed pass.
  expect(courtesy.batchSize).toHaveBeenCalledTimes(4)
  expect(courtesy.batchSize).toHaveBeenCalledWith(300)
  expect(courtesy.pause).toHaveBeenCalledTimes(3)
})
