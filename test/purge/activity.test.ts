// User requests go first: the purge pauses between batches while the app is busy, boundedly.
import { unwrap } from 'idb'
import { expect, test, vi } from 'vitest'
import { MAX_PAUSE_MS, QUIET_MS, UserActivity } from '../../src/activity.js'
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
  return { activity, waits: () => waits }
}

test('pause returns at once when the app is quiet', async () => {
  const { activity, waits } = fakeActivity()
  await activity.pause()
  expect(waits()).toBe(0)
})

test('after a request, pause waits until the app has been quiet for QUIET_MS', async () => {
  const { activity, waits } = fakeActivity()
  activity.note()
  await activity.pause()
  expect(waits()).toBe(QUIET_MS)
})

test('under constant requests a pause ends after MAX_PAUSE_MS: the purge slows, never stops', async () => {
  const { activity, waits } = fakeActivity((a) => a.note())
  activity.note()
  await activity.pause()
  expect(waits()).toBe(MAX_PAUSE_MS)
})

test('the purge pauses between batches, not before the first', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 1 } } })
  await db.putAll('s', Array.from({ length: 250 }, (_, i) => ({ id: i })))
  clock.advance(1_000)
  const pause = vi.fn(async () => {})
  expect(await purgeStore(unwrap(db.raw), 's', clock, 100, pause)).toBe(250)
  expect(pause).toHaveBeenCalledTimes(2)
})
