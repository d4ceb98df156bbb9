/**
 * A lock granted while the page cannot run its callback (Chromium, inside `window.open`) comes to
 * nothing: the request rejects and the lock passes on. `holdLock` asks again, so that the page
 * still purges and its listeners are still seen; Web Locks' own refusals stay final.
 */
import { afterEach, expect, test, vi } from 'vitest'
import { holdLock, withLock } from '../../src/platform/lock.js'
import { freshDB, uniqueName } from '../helpers.js'
import { ensureLocks, refuseGrants } from '../purge/stubs.js'

const restore: (() => void)[] = []
afterEach(() => restore.splice(0).reverse().forEach((undo) => undo()))

const heldNames = async () => ((await navigator.locks.query()).held ?? []).map((lock) => lock.name)

test('a lock whose grants come to nothing is asked for again until held, and let go on release', async () => {
  restore.push(ensureLocks())
  const name = uniqueName('refused')
  const refusing = refuseGrants(name, 3)
  restore.push(refusing.restore)
  const lock = holdLock(name)!
  await lock.granted
  expect(refusing.counts.refused).toBe(3)
  expect(await heldNames()).toContain(name)
  lock.release()
  await vi.waitFor(async () => expect(await heldNames()).not.toContain(name), { timeout: 5000, interval: 5 })
})

test('the purger election survives a grant that came to nothing: the handle becomes the purger', async () => {
  restore.push(ensureLocks())
  const refusing = refuseGrants('idb-ttl:purge:')
  restore.push(refusing.restore)
  const db = await freshDB({ purge: { mode: 'inline' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
  await vi.waitFor(() => expect(db.isPurger).toBe(true), { timeout: 5000, interval: 5 })
  expect(refusing.counts.refused).toBe(1)
})

test("Web Locks' own refusal (a DOMException) is final: granted resolves and nothing is asked again", async () => {
  restore.push(ensureLocks())
  const nav = navigator as Navigator & { locks: LockManager }
  const own = Object.getOwnPropertyDescriptor(nav, 'locks')
  let requests = 0
  let askedAgain!: () => void
  const again = new Promise<string>((resolve) => (askedAgain = () => resolve('asked again')))
  const refusing = {
    request: async () => {
      if (++requests > 1) askedAgain()
      throw new DOMException('Access to the Locks API is denied in this context.', 'SecurityError')
    },
    query: () => nav.locks.query(),
  }
  Object.defineProperty(nav, 'locks', { value: refusing, configurable: true })
  restore.push(() => (own ? Object.defineProperty(nav, 'locks', own) : delete (nav as { locks?: unknown }).locks))
  const lock = holdLock(uniqueName('denied'))!
  // `ended` settles once nothing is asked for any more: after it, no retry can come. A retry
  // would come first (10 ms after the refusal), and `ended` never.
  expect(await Promise.race([lock.ended.then(() => 'ended'), again])).toBe('ended')
  expect(requests).toBe(1)
  await lock.granted
  lock.release()
})


test("a mirror's round whose lock grant came to nothing is asked for again and runs once: it neither fails nor runs twice", async () => {
  restore.push(ensureLocks())
  const name = uniqueName('round')
  const refusing = refuseGrants(name, 2)
  restore.push(refusing.restore)
  let runs = 0
  expect(await withLock(navigator.locks, name, async () => ++runs)).toBe(1)
  expect(refusing.counts.refused).toBe(2)
  expect(runs).toBe(1)
  // The round's own failure is not a refused grant: it rejects, and is not run again.
  await expect(withLock(navigator.locks, name, async () => Promise.reject(new Error(`run ${++runs}`)))).rejects.toThrow('run 2')
  expect(runs).toBe(2)
})
