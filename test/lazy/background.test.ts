// Issue #44: the page entries' background purge is loaded with `import()` at the first idle callback
// (background/lazy.ts). Its chunk failing to load (an offline PWA that never cached it) must cost
// the purge only, never the handle's reads and writes, and never for good; a handle closed while
// it loads gets what any closed handle gets.
import { deleteDB } from 'idb'
import { expect, test, vi } from 'vitest'
import type { MakeBackground, Purging } from '../../src/background/background.js'
import { BUSY_BATCH_SIZE } from '../../src/background/courtesy.js'
import { lazyBackground } from '../../src/background/lazy.js'
import { manualClock, uniqueName } from '../helpers.js'
import { chunks } from './loaders.js'

const until = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 5 })

test('a background whose chunk failed to load is loaded again by the next purgeExpired, which purges; reads and writes went on meanwhile', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    const { open, background } = chunks()
    const clock = manualClock()
    const name = uniqueName()
    background.failNext(new TypeError('Failed to fetch dynamically imported module'))
    const db = await open(name, { clock })
    // The idle callback's load fails, and says so.
    await until(() => expect(warn).toHaveBeenCalledTimes(1))
    await db.putAll('s', [{ id: 'gone', ttl: 1 }, { id: 'kept' }])
    clock.advance(5_000)
    expect(await db.getAllKeys('s')).toEqual(['kept'])
    expect(await db.purgeExpired()).toBe(1)
    expect(background.loads).toBe(2)
    db.close()
    await deleteDB(name)
  } finally {
    warn.mockRestore()
  }
})

/**
 * The stand-in alone, over a background that records what it is told (each value as it is when
 * told, as a Background reads it), made by the module `load` brings.
 */
function standIn(load: (makeBackground: MakeBackground) => Promise<{ makeBackground: MakeBackground }>) {
  const told: unknown[][] = []
  const makeBackground: MakeBackground = () =>
    ({
      purger: { purgeAll: async () => 0 },
      isPurger: true,
      wrote: (store, values, ...rest) => void told.push(['wrote', store, values.map((value) => ({ ...(value as object) })), ...rest]),
      due: (...args) => void told.push(['due', ...args]),
      purgeFor: async () => {},
      close: () => {},
    }) satisfies Purging
  const options = { name: 'stand-in', stores: {}, purge: { mode: 'worker', batchSize: 300, sliceMs: 30, maxIntervalMs: 60_000, idleTimeoutMs: 2_000 }, clock: () => 0, connect: () => Promise.reject(new Error('not used')), activity: { note() {} }, onReport: () => {} }
  return { told, background: lazyBackground(() => load(makeBackground))(options as never) }
}

test('the values a handle writes while its background cannot be loaded are not held for it (an offline page writes on); a background loaded later hears what comes after', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    let reachable = false
    const failure = new TypeError('Failed to fetch dynamically imported module')
    const { told, background } = standIn(async (makeBackground) => {
      if (!reachable) throw failure
      return { makeBackground }
    })
    await expect(background.purger.purgeAll(['s'], 0)).rejects.toBe(failure)
    background.wrote('s', [{ id: 'written offline' }])
    background.due('s')
    reachable = true
    await background.purger.purgeAll(['s'], 0)
    background.wrote('s', [{ id: 'written since' }])
    expect(told).toEqual([['wrote', 's', [{ id: 'written since' }], 0]])
    expect(warn).toHaveBeenCalledTimes(1)
    background.close()
  } finally {
    warn.mockRestore()
  }
})

test('a wake-up told before the background is loaded carries the ttl and _ts the values had when written, not what the app changed in them since', async () => {
  let load!: () => void
  const loading = new Promise<void>((resolve) => (load = resolve))
  const { told, background } = standIn(async (makeBackground) => (await loading, { makeBackground }))
  // An app that reuses one object for its writes.
  const value = { id: 1, ttl: 1, _ts: 100 }
  background.wrote('s', [value])
  Object.assign(value, { ttl: -1, _ts: 200 })
  load()
  await background.purger.purgeAll([], 0)
  expect(told).toEqual([['wrote', 's', [{ ttl: 1, _ts: 100 }], 0, true]])
  background.close()
})

test('purgeExpired, then close() while the background loads: the purge rejects with TtlError CLOSED, as after close(), and no background is made', async () => {
  let load!: () => void
  const loading = new Promise<void>((resolve) => (load = resolve))
  let made = 0
  const { background } = standIn(async (makeBackground) => (await loading, { makeBackground: (options) => (made++, makeBackground(options)) }))
  const purged = background.purger.purgeAll(['s'], 0)
  background.close()
  load()
  await expect(purged).rejects.toMatchObject({ name: 'TtlError', code: 'CLOSED' })
  expect(made).toBe(0)
})

test('a request made while the purge is not loaded yet makes its first batches courteous: the time of the last request is kept from the first load on (background/activity.ts)', async () => {
  const { open, background } = chunks()
  const clock = manualClock()
  const name = uniqueName()
  background.hold()
  const db = await open(name, { clock, purge: { mode: 'off' } })
  await db.putAll('s', Array.from({ length: 600 }, (_, i) => ({ id: i })))
  clock.advance(61_000)
  // How lately the app made a request is judged by the real clock, which a loaded machine stalls:
  // here each reading moves it 1 ms, so the app is busy for RECENT_MS readings after its request.
  let readings = performance.now()
  const now = vi.spyOn(performance, 'now').mockImplementation(() => (readings += 1))
  const getAllKeys = vi.spyOn(IDBIndex.prototype, 'getAllKeys')
  try {
    expect(await db.get('s', 0)).toBeUndefined()
    const purge = db.purgeExpired('s')
    background.release()
    expect(await purge).toBe(600)
    expect(getAllKeys.mock.calls[0][1]).toBe(BUSY_BATCH_SIZE)
  } finally {
    now.mockRestore()
    getAllKeys.mockRestore()
  }
  db.close()
  await deleteDB(name)
})
