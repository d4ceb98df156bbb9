// User requests go first: the purge pauses between batches while the app is busy, boundedly.
import { unwrap } from 'idb'
import { expect, test, vi } from 'vitest'
import { BUSY_BATCH_SIZE, MAX_PAUSE_MS, QUIET_MS, RECENT_MS, UserActivity } from '../../src/background/courtesy.js'
import { purgeStore } from '../../src/purge/purge.js'
import { IDLE_GROWTH } from '../../src/rules/purge-options.js'
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
  expect(activity.finish(300)).toBe((IDLE_GROWTH - 1) * 300)
  activity.note()
  advance(RECENT_MS + 1)
  await activity.pause()
  expect(waits()).toBe(0)
  expect(activity.batchSize(300)).toBe(300)
  expect(activity.finish(300)).toBe((IDLE_GROWTH - 1) * 300)
})

test('after a request, batches are small and a pause lasts until the app has been quiet for QUIET_MS', async () => {
  const { activity, waits } = fakeActivity()
  activity.note()
  expect(activity.batchSize(300)).toBe(BUSY_BATCH_SIZE)
  expect(activity.batchSize(10)).toBe(10)
  // A busy app's batch stops at its size, even inside a second.
  expect(activity.finish(10)).toBe(0)
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

test("requests to another database of the page make a purge courteous too: the origin's databases share one storage backend", async () => {
  const clock = manualClock()
  const stores = { s: { keyPath: 'id', defaultTtl: 1 } }
  // No background purge: purgeExpired alone deletes, on the page (the same code as the worker's).
  const purged = await freshDB({ clock, stores, purge: { mode: 'off' } })
  const other = await freshDB({ clock, stores: { s: { keyPath: 'id' } } })
  // Long enough to last many batches: only the reads of the other database make them courteous.
  const items = 20 * BUSY_BATCH_SIZE
  await purged.putAll('s', Array.from({ length: items }, (_, i) => ({ id: i })))
  await other.put('s', { id: 'read' })
  clock.advance(1_000)
  const transaction = vi.spyOn(IDBDatabase.prototype, 'transaction')
  // The purge judges how lately the app made a request by the real clock, which a loaded machine
  // stalls for longer than RECENT_MS between two reads. Here each reading moves it 1 ms: a pause
  // ends after MAX_PAUSE_MS readings, and the other database's reads, heard or not, are what the
  // batches show, however fast the machine runs.
  let readings = performance.now()
  const now = vi.spyOn(performance, 'now').mockImplementation(() => (readings += 1))
  try {
    let purging = true
    const purge = purged.purgeExpired('s').finally(() => (purging = false))
    while (purging) expect(await other.get('s', 'read')).toBeDefined()
    expect(await purge).toBe(items)
    const batches = transaction.mock.contexts.filter((db, i) => (db as IDBDatabase).name === purged.raw.name && transaction.mock.calls[i][1] === 'readwrite')
    // Busy batches take at most BUSY_BATCH_SIZE keys; full ones would have taken 300 or more.
    expect(batches.length).toBeGreaterThanOrEqual(items / BUSY_BATCH_SIZE)
  } finally {
    now.mockRestore()
    transaction.mockRestore()
  }
  // Twenty batches, each followed by a pause of about 30 timer ticks: work, not waiting; the bound
  // is for a hang.
}, 30_000)

test('purgeExpired does not yield to its own call: with the app idle, its batches are full', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 1 } }, purge: { mode: 'off' } })
  await db.putAll('s', Array.from({ length: 600 }, (_, i) => ({ id: i })))
  clock.advance(1_000)
  // The app's own last request (the putAll) is over RECENT_MS ago: the app is idle. The real
  // clock the purge judges that by is moved on, not slept through.
  const real = performance.now.bind(performance)
  const now = vi.spyOn(performance, 'now').mockImplementation(() => real() + RECENT_MS + 1)
  const getAllKeys = vi.spyOn(IDBIndex.prototype, 'getAllKeys')
  try {
    expect(await db.purgeExpired('s')).toBe(600)
    // The first batch takes 300, then, the app idle, the rest of their second (read from its start).
    expect(getAllKeys.mock.calls.map(([, count]) => count).slice(0, 2)).toEqual([300, IDLE_GROWTH * 300])
  } finally {
    getAllKeys.mockRestore()
    now.mockRestore()
  }
})
