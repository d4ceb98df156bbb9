// background/lazy.ts: the page entries' background, loaded at the first idle callback; what the
// handle says before then reaches it, with its time.
import { expect, test, vi } from 'vitest'
import type { BackgroundParts, MakeBackground, Purging } from '../../src/background/background.js'
import { lazyBackground } from '../../src/background/lazy.js'
import { manualClock } from '../helpers.js'

const until = (check: () => void) => vi.waitFor(check, { timeout: 5_000, interval: 5 })

function parts(clock: () => number): BackgroundParts {
  return {
    name: 'lazy-db',
    stores: {},
    purge: { mode: 'worker', batchSize: 300, sliceMs: 30, maxIntervalMs: 60_000, idleTimeoutMs: 2_000 },
    clock,
    connect: () => Promise.reject(new Error('not used')),
    requests: { last: -Infinity },
    onReport: () => {},
  }
}

/** A background that records what it is told. */
function recorder() {
  const told: unknown[][] = []
  const closed: string[] = []
  const made: BackgroundParts[] = []
  const makeBackground: MakeBackground = (options) => {
    made.push(options)
    const background: Purging = {
      purger: { purgeAll: async (stores) => stores.length },
      isPurger: true,
      wrote: (...args) => void told.push(['wrote', ...args]),
      due: (...args) => void told.push(['due', ...args]),
      purgeFor: async () => {},
      close: () => void closed.push('closed'),
    }
    return background
  }
  return { told, closed, made, makeBackground }
}

test('writes and changes of default told before the background is loaded reach it once loaded, in order, with the time they were told at, and announced to every handle', async () => {
  const clock = manualClock(1_700_000_000_000)
  const { told, made, makeBackground } = recorder()
  const background = lazyBackground(async () => ({ makeBackground }))(parts(() => clock.now))
  expect(background.isPurger).toBe(false)
  background.wrote('s', [{ ttl: 1 }])
  clock.advance(5_000)
  background.due('s')
  await until(() => expect(made).toHaveLength(1))
  expect(told).toEqual([
    ['wrote', 's', [{ ttl: 1 }], 1_700_000_000_000, true],
    ['due', 's', true],
  ])
  expect(background.isPurger).toBe(true)
  // Once loaded, told at once, as a Background is.
  background.wrote('s', [{}])
  expect(told.at(-1)).toEqual(['wrote', 's', [{}], 1_700_000_005_000])
  background.close()
})

test('purgeExpired (purgeAll) loads the background at once, without waiting for idle', async () => {
  const { made, makeBackground } = recorder()
  let load!: () => void
  const loading = new Promise<void>((resolve) => (load = resolve))
  const background = lazyBackground(async () => {
    await loading
    return { makeBackground }
  })(parts(() => Date.now()))
  const purged = background.purger.purgeAll(['a', 'b'], 0)
  load()
  expect(await purged).toBe(2)
  expect(made).toHaveLength(1)
  background.close()
})

test('a handle closed before its background is loaded makes none; one closed after closes it', async () => {
  const first = recorder()
  const early = lazyBackground(async () => ({ makeBackground: first.makeBackground }))(parts(() => Date.now()))
  early.close()
  await expect(early.purger.purgeAll(['a'], 0)).rejects.toThrow(/closed/)
  expect(first.made).toEqual([])
  const second = recorder()
  const late = lazyBackground(async () => ({ makeBackground: second.makeBackground }))(parts(() => Date.now()))
  await until(() => expect(second.made).toHaveLength(1))
  late.close()
  expect(second.closed).toEqual(['closed'])
})

test('a background that cannot be loaded is said once on the console, naming the database; purgeExpired rejects with why', async () => {
  const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
  try {
    const failure = new Error('Failed to fetch dynamically imported module')
    const background = lazyBackground(() => Promise.reject(failure))(parts(() => Date.now()))
    await expect(background.purger.purgeAll(['a'], 0)).rejects.toBe(failure)
    await expect(background.purger.purgeAll(['a'], 0)).rejects.toBe(failure)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0][0])).toMatch(/could not be loaded .*Failed to fetch.*"lazy-db" is not purged/)
    background.close()
  } finally {
    warn.mockRestore()
  }
})
