// SPEC §7–8: reading lifetimes (expiresAt, ttlUntil, stats) and keeping a server's _ts (keepTs).
import { expect, test } from 'vitest'
import { ttlUntil } from '../../src/index.js'
import { freshDB, manualClock } from '../helpers.js'
import { expectTtlError, rawKeys, SECOND, T0 } from './support.js'

const TS0 = T0 / SECOND
const HOUR = 3600

test('ttlUntil gives the ttl that expires an item written now at that moment, rounded up, never early', () => {
  expect(ttlUntil(T0 + 10 * SECOND, T0)).toBe(10)
  expect(ttlUntil(T0 + 10_200, T0 + 500)).toBe(11)
  expect(ttlUntil(T0 + 1, T0 + 999)).toBe(1)
  for (const [at, now] of [[T0, T0], [T0 + 999, T0 + 1000], [T0 - SECOND, T0], [NaN, T0], [Infinity, T0], [T0 + 2 ** 31 * SECOND, T0]]) {
    expect(() => ttlUntil(at, now), `${at} from ${now}`).toThrow(expect.objectContaining({ name: 'TtlError', code: 'INVALID_TTL' }))
  }
  const now = Date.now()
  expect(ttlUntil(now + 60 * SECOND)).toBeGreaterThanOrEqual(60)
})

test('an item written with ttlUntil(at) is live just before `at` and expired at the first whole second after', async () => {
  const clock = manualClock(T0 + 300)
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: -1 } } })
  const at = T0 + 42_500
  await db.put('s', { id: 'a', ttl: ttlUntil(at, clock()) })
  clock.set(at - 1)
  expect(await db.get('s', 'a')).toBeDefined()
  expect(await db.expiresAt('s', 'a')).toBe(T0 + 43_000)
})

test('expiresAt follows the settings in force and is undefined for a dead or missing key', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 100 } } })
  await db.putAll('s', [{ id: 'inherits' }, { id: 'own', ttl: 30 }, { id: 'never', ttl: -1 }])
  expect(await db.expiresAt('s', 'inherits')).toBe(T0 + 100 * SECOND)
  expect(await db.expiresAt('s', 'own')).toBe(T0 + 30 * SECOND)
  expect(await db.expiresAt('s', 'never')).toBe(Infinity)
  expect(await db.expiresAt('s', 'missing')).toBeUndefined()
  await db.setDefaultTtl('s', 20)
  expect(await db.expiresAt('s', 'inherits')).toBe(T0 + 20 * SECOND)
  await db.setDefaultTtl('s', -1)
  expect(await db.expiresAt('s', 'inherits')).toBe(Infinity)
  expect(await db.expiresAt('s', 'own')).toBe(T0 + 30 * SECOND)
  await db.setDefaultTtl('s', null)
  expect(await db.expiresAt('s', 'own')).toBe(Infinity)
  clock.set(T0 + 30 * SECOND)
  await db.setDefaultTtl('s', 10)
  // Re-enabled at T0 + 30 s with 10: both are past their expiry, counted from their _ts.
  expect(await db.expiresAt('s', 'inherits')).toBeUndefined()
  expect(await db.expiresAt('s', 'own')).toBeUndefined()
  expect(await db.expiresAt('s', 'never')).toBe(Infinity)
})

test('stats counts live and expired-on-disk items and tells the next expiry', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 100 } } })
  expect(await db.stats('s')).toEqual({ live: 0, expiredOnDisk: 0, nextExpiryMs: Infinity })
  await db.putAll('s', [{ id: 1, ttl: 5 }, { id: 2, ttl: 5 }, { id: 3, ttl: 50 }, { id: 4 }, { id: 5, ttl: -1 }])
  expect(await db.stats('s')).toEqual({ live: 5, expiredOnDisk: 0, nextExpiryMs: T0 + 5 * SECOND })
  clock.set(T0 + 5 * SECOND)
  expect(await db.stats('s')).toEqual({ live: 3, expiredOnDisk: 2, nextExpiryMs: T0 + 50 * SECOND })
  await db.purgeExpired('s')
  expect(await db.stats('s')).toEqual({ live: 3, expiredOnDisk: 0, nextExpiryMs: T0 + 50 * SECOND })
  clock.set(T0 + 50 * SECOND)
  expect(await db.stats('s')).toEqual({ live: 2, expiredOnDisk: 1, nextExpiryMs: T0 + 100 * SECOND })
  await db.setDefaultTtl('s', -1)
  expect(await db.stats('s')).toEqual({ live: 2, expiredOnDisk: 1, nextExpiryMs: Infinity })
})

const mirror = { docs: { keyPath: 'id', defaultTtl: -1, keepTs: true } }

test('keepTs: a server _ts of an hour ago with ttl 1800 is born dead; with ttl 7200 it lives one more hour', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: mirror })
  const serverTs = TS0 - HOUR
  await db.put('docs', { id: 'short', ttl: 1800, _ts: serverTs })
  await db.put('docs', { id: 'long', ttl: 7200, _ts: serverTs })
  expect(await db.get('docs', 'short')).toBeUndefined()
  expect(await db.get('docs', 'long')).toEqual({ id: 'long', ttl: 7200, _ts: serverTs })
  expect(await db.expiresAt('docs', 'long')).toBe(T0 + HOUR * SECOND)
  clock.set(T0 + HOUR * SECOND - 1)
  expect(await db.get('docs', 'long')).toBeDefined()
  clock.set(T0 + HOUR * SECOND)
  expect(await db.get('docs', 'long')).toBeUndefined()
  expect(await db.purgeExpired('docs')).toBe(2)
})

test('keepTs: a value without _ts is stamped; update keeps a _ts it sets; touch restarts the countdown', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: mirror })
  await db.put('docs', { id: 'a', ttl: 100 })
  expect(await db.get('docs', 'a')).toMatchObject({ _ts: TS0 })
  clock.set(T0 + 10 * SECOND)
  expect(await db.update('docs', 'a', { v: 1 })).toMatchObject({ _ts: TS0 + 10 })
  expect(await db.update('docs', 'a', { _ts: TS0 + 5 })).toMatchObject({ _ts: TS0 + 5 })
  expect(await db.update('docs', 'a', (doc) => ({ ...doc, _ts: TS0 + 7 }))).toMatchObject({ _ts: TS0 + 7 })
  expect(await db.update('docs', 'a', (doc) => ({ ...doc, v: 2 }))).toMatchObject({ _ts: TS0 + 10 })
  clock.set(T0 + 20 * SECOND)
  expect(await db.touch('docs', 'a')).toMatchObject({ _ts: TS0 + 20 })
})

test.for([
  { name: 'a fraction', ts: 1.5 },
  { name: 'a negative', ts: -1 },
  { name: 'a string', ts: '1700000000' },
  { name: 'null', ts: null },
  { name: 'a bigint', ts: 1700000000n },
  { name: 'beyond the year 5138', ts: 1e11 },
])('keepTs: a _ts that is $name is INVALID_VALUE in strict mode and stamped now in lenient mode', async ({ ts }) => {
  const clock = manualClock(T0)
  const strict = await freshDB({ clock, stores: mirror })
  await expectTtlError(strict.put('docs', { id: 'a', _ts: ts }), 'INVALID_VALUE')
  await expectTtlError(strict.putAll('docs', [{ id: 'ok', _ts: TS0 }, { id: 'b', _ts: ts }]), 'INVALID_VALUE')
  expect(await rawKeys(strict, 'docs')).toEqual([])
  const lenient = await freshDB({ clock, stores: mirror, ttlValues: 'lenient' })
  await lenient.put('docs', { id: 'a', _ts: ts })
  expect(await lenient.get('docs', 'a')).toEqual({ id: 'a', _ts: TS0 })
})

test('keepTs: a _ts given as undefined is refused with a message that says so once', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: mirror })
  const error = await db.putAll('docs', [{ id: 'a', _ts: TS0 }, { id: 'b', _ts: undefined }]).catch((e: unknown) => e)
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_VALUE', message: expect.stringMatching(/^store "docs", item 1: .*; got undefined$/) })
  const other = await db.put('docs', { id: 'a', _ts: 'yesterday' }).catch((e: unknown) => e)
  expect(other).toMatchObject({ code: 'INVALID_VALUE', message: expect.stringMatching(/; got the string "yesterday"$/) })
  expect(await rawKeys(db, 'docs')).toEqual([])
})

test('without keepTs a given _ts is overwritten, and keepTs must be a boolean', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } })
  await db.put('s', { id: 'a', _ts: 5 })
  expect(await db.get('s', 'a')).toEqual({ id: 'a', _ts: TS0 })
  await expectTtlError(freshDB({ clock, stores: { s: { keyPath: 'id', keepTs: 'yes' as never } } }), 'INVALID_OPTION')
})
