/**
 * SPEC §14: expired entries leave the disk at idle on the page, in small batches, with no worker:
 * one short transaction per idle callback (requestIdleCallback; setTimeout where it is absent).
 */
import { afterEach, expect, test, vi } from 'vitest'
import { clear, get, keys, set, setMany } from '../../src/keyval.js'
import { SECOND } from '../semantics/support.js'
import { fresh, onDisk } from './support.js'
import { SOON } from '../waits.js'

afterEach(() => void vi.unstubAllGlobals())

/** The idle callbacks the purge asks for, run by the test one at a time. */
function idleCallbacks() {
  const queued: (() => void)[] = []
  vi.stubGlobal('requestIdleCallback', (task: () => void) => queued.push(task))
  return {
    /** Waits until the purge asks for an idle callback, and runs it. */
    async runNext() {
      await vi.waitFor(() => expect(queued.length).toBeGreaterThan(0), SOON)
      queued.shift()!()
    },
  }
}

const keysOnDisk = async (name: string) => (await onDisk(name)).map(([key]) => key)

test('expired entries are deleted from the disk in batches of 50, one per idle callback, and live ones stay', async () => {
  const idle = idleCallbacks()
  const { store, clock, name } = fresh()
  // Opening the store starts a round for what earlier pages left: here, nothing.
  await clear(store)
  await idle.runNext()

  const expired = Array.from({ length: 120 }, (_, i): [string, number] => [`e${String(i).padStart(3, '0')}`, i])
  await setMany(expired, { ttl: 10, store })
  await setMany([['live-1', 1], ['live-2', 2]], store)
  await set('live-3', 3, { ttl: 60, store })
  clock.advance(10 * SECOND)
  // The read hides them all at once, and asks for a round.
  expect(await keys(store)).toEqual(['live-1', 'live-2', 'live-3'])
  expect(await keysOnDisk(name)).toHaveLength(123)

  await idle.runNext()
  await vi.waitFor(async () => expect(await keysOnDisk(name)).toHaveLength(73), SOON)
  expect((await keysOnDisk(name))[0]).toBe('e050')
  await idle.runNext()
  await vi.waitFor(async () => expect(await keysOnDisk(name)).toHaveLength(23), SOON)
  await idle.runNext()
  await vi.waitFor(async () => expect(await keysOnDisk(name)).toEqual(['live-1', 'live-2', 'live-3']), SOON)
  expect(await get('live-3', store)).toBe(3)
})

test('a round deletes only what is expired when it reads it: an entry written again after it expired stays', async () => {
  const idle = idleCallbacks()
  const { store, clock, name } = fresh()
  await set('a', 'old', { ttl: 1, store })
  await idle.runNext() // the round that opening started: 'a' is live then
  clock.advance(SECOND)
  expect(await get('a', store)).toBeUndefined()
  await set('a', 'new', { ttl: 1, store })
  await idle.runNext()
  // The batch's transaction was asked for before this read's: the read sees what it left.
  expect(await get('a', store)).toBe('new')
  expect(await keysOnDisk(name)).toEqual(['a'])
})

test('where there is no requestIdleCallback (workers, WebKit), the purge runs on setTimeout', async () => {
  vi.stubGlobal('requestIdleCallback', undefined)
  const { store, clock, name } = fresh()
  await set('gone', 1, { ttl: 1, store })
  await set('kept', 2, store)
  clock.advance(SECOND)
  expect(await get('gone', store)).toBeUndefined()
  await vi.waitFor(async () => expect(await keysOnDisk(name)).toEqual(['kept']), SOON)
})
