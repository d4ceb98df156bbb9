/**
 * A small first load: what is not needed to open and read (writes, sliding expiry, events, the
 * background purge: `src/handle/deferred.ts`) is loaded with `import()` once a database is open. Here
 * that load is held back at will, standing in for a slow network. Node only: it replaces a
 * module of the library (`vi.mock`), and the bundle split itself is measured by `npm run bench`
 * (`size`) and shipped through the consumer test.
 */
import { deleteDB } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import { manualClock, uniqueName } from './helpers.js'

let release = () => {}
const cleanups: (() => Promise<unknown>)[] = []

/**
 * A fresh copy of the library whose deferred code loads only once `release` is called, or fails
 * to load then (as a chunk an app update removed would).
 */
async function heldLibrary(fails = false) {
  const gate = new Promise<void>((resolve) => (release = resolve))
  vi.doMock('../src/handle/deferred.js', async (importOriginal) => {
    await gate
    if (fails) throw new TypeError('Failed to fetch dynamically imported module')
    return importOriginal()
  })
  vi.resetModules()
  return (await import('../src/index.js')) as typeof import('../src/index.js')
}

afterEach(async () => {
  release()
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

/** Whether `promise` settles within a few turns of the event loop (the load is held meanwhile). */
async function settlesSoon(promise: Promise<unknown>): Promise<boolean> {
  let settled = false
  promise.then(
    () => (settled = true),
    () => (settled = true),
  )
  for (let i = 0; i < 20 && !settled; i++) await new Promise((resolve) => setTimeout(resolve, 5))
  return settled
}

test('open and reads do not wait for the code loaded after open; a write and onExpire get it once it is there', async () => {
  const clock = manualClock()
  const name = uniqueName('loading')
  const db = await (await heldLibrary()).openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  cleanups.push(() => (db.close(), deleteDB(name)))
  expect(await db.get('s', 'absent')).toBeUndefined()
  expect(await db.getAll('s')).toEqual([])
  expect(db.isPurger).toBe(false)

  const heard: unknown[] = []
  db.onExpire((event) => heard.push(...event.items.map((item) => item.key)))
  const put = db.put('s', { id: 'a', ttl: 1 })
  // The write waits for its code: a negative check, bounded by the held load, not by a timer.
  expect(await settlesSoon(put)).toBe(false)
  release()
  await put
  expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })

  clock.advance(2_000)
  expect(await db.purgeExpired('s')).toBe(1)
  await vi.waitFor(() => expect(heard).toEqual(['a']))
})

test('a sliding store needs its touches for the first read: open waits for the code loaded after open', async () => {
  const name = uniqueName('loading')
  const { openTtlDB } = await heldLibrary()
  const opening = openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } } })
  cleanups.push(async () => ((await opening).close(), deleteDB(name)))
  expect(await settlesSoon(opening)).toBe(false)
  release()
  expect(await (await opening).get('s', 'absent')).toBeUndefined()
})

test('code that fails to load fails the calls that need it; reads, counts included, go on', async () => {
  const name = uniqueName('loading')
  const db = await (await heldLibrary(true)).openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores })
  cleanups.push(() => (db.close(), deleteDB(name)))
  release()
  // vitest wraps the loader's error in its own message about the mock.
  await expect(db.put('s', { id: 'a' })).rejects.toThrow()
  expect(await db.get('s', 'a')).toBeUndefined()
  expect(await db.count('s')).toBe(0)
  expect(await db.getAllKeys('s')).toEqual([])
})
