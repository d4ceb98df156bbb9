// Several handles of one database (other tabs, other app versions, other modules of a page):
// one of them purges, for all of them.
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import type { PurgeReport } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { ensureLocks } from './stubs.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 10 })
const deleted = (reports: PurgeReport[], store: string) =>
  reports.filter((r) => r.store === store).reduce((n, r) => n + r.deleted, 0)

let removeLocks: () => void
beforeEach(() => void (removeLocks = ensureLocks()))
afterEach(() => removeLocks())

test('the purger purges the stores another app version declared, which its own handle does not know', async () => {
  const clock = manualClock()
  const name = uniqueName('versions')
  const purge = { mode: 'inline' as const, maxIntervalMs: 20 }
  const older = await freshDB({ clock, version: 1, purge, stores: { a: { keyPath: 'id', defaultTtl: 10 } } }, name)
  await until(() => expect(older.isPurger).toBe(true))
  const newer = await freshDB(
    { clock, version: 2, purge, stores: { a: { keyPath: 'id', defaultTtl: 10 }, b: { keyPath: 'id', defaultTtl: 10 } } },
    name,
  )
  expect(newer.isPurger).toBe(false)
  const reports: PurgeReport[] = []
  older.onPurge((r) => reports.push(r))
  await newer.putAll('b', Array.from({ length: 5 }, (_, i) => ({ id: i })))
  await newer.put('a', { id: 'x' })
  clock.advance(10_000)
  await until(() => expect(deleted(reports, 'b')).toBe(5))
  expect(await newer.raw.count('b')).toBe(0)
  // Each store is its own batch, in a slice of its own or the next: 'a' may come after 'b'.
  await until(() => expect(deleted(reports, 'a')).toBe(1))
})

/** A purger that has gone to sleep for a long time, and a handle of the same database that is not the purger. */
async function purgerAsleep() {
  const clock = manualClock()
  const name = uniqueName('wake')
  const stores = { s: { keyPath: 'id', defaultTtl: 3600 } }
  const purger = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 600_000 } }, name)
  const reports: PurgeReport[] = []
  purger.onPurge((r) => reports.push(r))
  await until(() => expect(purger.isPurger).toBe(true))
  // A slice that deleted something: the purger now sleeps until the next expiry, an hour away.
  await purger.putAll('s', [{ id: 'first', ttl: 1 }, { id: 'long' }])
  clock.advance(1_000)
  await until(() => expect(deleted(reports, 's')).toBe(1))
  const other = await freshDB({ clock, stores, purge: { mode: 'inline', maxIntervalMs: 600_000 } }, name)
  expect(other.isPurger).toBe(false)
  return { clock, purger, other, reports }
}

test('a write by a handle that is not the purger wakes the purger for what it makes due sooner', async () => {
  const { clock, other, reports } = await purgerAsleep()
  await other.put('s', { id: 'short', ttl: 1 })
  clock.advance(1_000)
  await until(() => expect(deleted(reports, 's')).toBe(2))
  expect(await other.raw.getAllKeys('s')).toEqual(['long'])
})

test('a change of default by a handle that is not the purger wakes the purger', async () => {
  const { clock, other, reports } = await purgerAsleep()
  clock.advance(5_000)
  await other.setDefaultTtl('s', 2)
  await until(() => expect(deleted(reports, 's')).toBe(2))
  expect(await other.raw.count('s')).toBe(0)
})

test('a default lowered by a handle that opens with another declaration wakes the purger', async () => {
  const { clock, purger, reports } = await purgerAsleep()
  clock.advance(5_000)
  const expired: string[] = []
  purger.onExpire((event) => expired.push(...event.items.map((item) => item.key as string)))
  const newer = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 2 } }, purge: { mode: 'inline', maxIntervalMs: 600_000 } }, purger.raw.name)
  expect(newer.isPurger).toBe(false)
  await until(() => expect(deleted(reports, 's')).toBe(2))
  // The expiry events are published after the slice that deleted, apart from its report: wait for them too.
  await until(() => expect(expired).toEqual(['long']))
  expect(await newer.raw.count('s')).toBe(0)
})
