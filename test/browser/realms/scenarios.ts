/**
 * What each worker realm must do, asked from the page (client.ts): the same checks for a dedicated
 * worker, a shared worker and a service worker. Times are hours apart, so a background purge the
 * handle may run (timers of a minute at most) never deletes an item before a check expects it.
 */
import { expect, vi } from 'vitest'
import { openTtlDB, type ExpireEvent, type OpenTtlDBOptions, type TtlDB } from '../../../src/index.js'
import { manualClock, uniqueName } from '../../helpers.js'
import { afterTest, deleteAfterTest, type Realm } from './client.js'
import type { Heard } from './store-ops.js'

export const until = (check: () => Promise<void> | void, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 20 })

export const stores = { s: { keyPath: 'id', defaultTtl: 7200, indexes: { byTag: { keyPath: 'tag' } } } }

const S = 1000

/** A handle to database `name` in `realm`; `call` runs one of its methods there. */
export async function openIn(realm: Realm, purge: OpenTtlDBOptions['purge'], name = deleteAfterTest(uniqueName('realm'))) {
  await realm.ask({ op: 'open', name, options: { version: 1, stores, purge } })
  return {
    name,
    call: <T = unknown>(method: string, ...args: unknown[]) => realm.ask<T>({ op: 'call', name, method, args }),
    disk: () => realm.ask<{ count: number; keys: IDBValidKey[] }>({ op: 'disk', name, store: 's' }),
    heard: () => realm.ask<Heard>({ op: 'heard', name }),
    advance: (ms: number) => realm.ask<number>({ op: 'clock', advance: ms }),
  }
}

/** Every method of the handle, in `realm`, under the realm's own clock, which only the page moves. */
export async function everyMethod(realm: Realm, purge: OpenTtlDBOptions['purge']) {
  const db = await openIn(realm, purge)
  const keys = (items: { id: string }[]) => items.map((item) => item.id)
  expect(await db.call('put', 's', { id: 'a', tag: 'x' })).toBe('a')
  expect(await db.call('putAll', 's', [{ id: 'b', tag: 'x', ttl: 3600 }, { id: 'c', tag: 'z', ttl: -1 }])).toEqual(['b', 'c'])
  expect(await db.call('add', 's', { id: 'd', tag: 'x' })).toBe('d')
  await expect(db.call('add', 's', { id: 'a' })).rejects.toMatchObject({ name: 'ConstraintError' })
  expect(await db.call('update', 's', 'a', { tag: 'y' })).toMatchObject({ id: 'a', tag: 'y' })
  const a = await db.call<{ id: string; tag: string; _ts: number }>('get', 's', 'a')
  expect(a).toMatchObject({ id: 'a', tag: 'y' })
  // Stamped with the realm's clock (epoch seconds), not the wall clock.
  expect(a._ts).toBe((await db.advance(0)) / S)
  expect(await db.call('getFromIndex', 's', 'byTag', 'y')).toMatchObject({ id: 'a' })
  expect(keys(await db.call('getAll', 's'))).toEqual(['a', 'b', 'c', 'd'])
  expect(await db.call('count', 's')).toBe(4)
  await db.call('delete', 's', 'd')
  expect(await db.call('count', 's')).toBe(3)
  expect(await db.disk()).toEqual({ count: 3, keys: ['a', 'b', 'c'] })

  // b's hour is up: reads no longer see it, though it is still on the disk.
  await db.advance(3601 * S)
  expect(await db.call('get', 's', 'b')).toBeUndefined()
  expect(await db.call('getFromIndex', 's', 'byTag', 'x')).toBeUndefined()
  expect(await db.call('count', 's')).toBe(2)
  expect(keys(await db.call('getAll', 's'))).toEqual(['a', 'c'])
  expect((await db.disk()).count).toBe(3)

  // Touched at 5000 s, a outlives its first countdown (7200 s from 0).
  await db.advance(1399 * S)
  expect(await db.call('touch', 's', 'a')).toMatchObject({ id: 'a' })
  await db.advance(3000 * S)
  expect(await db.call('get', 's', 'a')).toMatchObject({ id: 'a', tag: 'y' })
  // b goes from the disk; a was touched, so it stays. A background purge (any mode but 'off') may
  // have deleted b first: its first slice waits for requests to pause, and these never do.
  const background = purge?.mode !== 'off'
  const purgedB = await db.call<number>('purgeExpired')
  if (background) expect(purgedB).toBeLessThanOrEqual(1)
  else expect(purgedB).toBe(1)
  expect(await db.disk()).toEqual({ count: 2, keys: ['a', 'c'] })
  // A default of 1000 s ends a (5000 + 1000 < 8000); c never expires.
  await db.call('setDefaultTtl', 's', 1000)
  expect(await db.call('getDefaultTtl', 's')).toBe(1000)
  expect(await db.call('get', 's', 'a')).toBeUndefined()
  expect(keys(await db.call('getAll', 's'))).toEqual(['c'])
  // A new default wakes a background purge, which may delete a before purgeExpired does.
  const purgedA = await db.call<number>('purgeExpired')
  if (background) expect(purgedA).toBeLessThanOrEqual(1)
  else expect(purgedA).toBe(1)
  expect(await db.disk()).toEqual({ count: 1, keys: ['c'] })
  await db.call('clear', 's')
  expect(await db.call('count', 's')).toBe(0)
  expect((await db.disk()).count).toBe(0)
}

/**
 * The background purge of a handle in `realm`: 50 items that die in a second and one that lives;
 * once the realm's clock moves on, the purge deletes the 50 from the disk on its own, and the
 * realm's onExpire and onPurge hear each once.
 */
export async function purgesInTheBackground(realm: Realm, purge: OpenTtlDBOptions['purge']) {
  const db = await openIn(realm, { maxIntervalMs: 20, idleTimeoutMs: 5, ...purge })
  const dead = Array.from({ length: 50 }, (_, i) => `dead-${i}`)
  await db.call('putAll', 's', [...dead.map((id) => ({ id, ttl: 1 })), { id: 'live', ttl: -1 }])
  expect((await db.disk()).count).toBe(51)
  await db.advance(5 * S)
  await until(async () => expect(await db.disk()).toEqual({ count: 1, keys: ['live'] }))
  await until(async () => {
    const { expired, reports } = await db.heard()
    expect(heardKeys(expired).sort()).toEqual([...dead].sort())
    expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(50)
  })
  expect(await db.call('getAll', 's')).toMatchObject([{ id: 'live' }])
  return db
}

/**
 * `purge: { mode: 'worker' }` in `realm`: a nested purge worker where the realm has `Worker`;
 * elsewhere the library falls back to purging inline in the realm, and says so once on the console.
 */
export async function purgesInWorkerMode(realm: Realm) {
  const { hasWorker } = await realm.ask<{ hasWorker: boolean }>({ op: 'hello' })
  const db = await purgesInTheBackground(realm, { mode: 'worker' })
  const { nestedWorkers, warnings } = await realm.ask<{ nestedWorkers: number; warnings: string[] }>({ op: 'spies' })
  if (hasWorker) return expect({ nestedWorkers, warnings }).toEqual({ nestedWorkers: 1, warnings: [] })
  expect(nestedWorkers).toBe(0)
  expect(warnings).toHaveLength(1)
  expect(warnings[0]).toMatch(/^idb-ttl: the purge worker could not be started from its URL: ReferenceError: .*Worker/)
  expect(warnings[0]).toContain(`Database "${db.name}" is purged inline, on this thread (as with purge: { mode: 'inline' })`)
  // Nothing to ship or allow where there is no Worker at all: the advice says so.
  expect(warnings[0]).toContain('cannot start workers')
  expect(warnings[0]).not.toContain('purge-worker.js beside the bundle')
}

export const heardKeys = (events: ExpireEvent[]) => events.flatMap((event) => event.items.map((item) => item.key as string))

/** A handle on the page to database `name`, which purges only when asked; closed after the test. */
export async function openOnPage(name: string) {
  const clock = manualClock()
  const db: TtlDB = await openTtlDB(name, { version: 1, stores, clock, purge: { mode: 'off' } })
  afterTest(() => db.close())
  const heard: ExpireEvent[] = []
  db.onExpire((event) => heard.push(event))
  return { db, clock, heard }
}

/**
 * A handle in `realm` and one on the page, of the same database: the page's onExpire hears what
 * the realm's background purge deleted, and the realm's hears what the page's purgeExpired did.
 */
export async function expiresAcrossRealms(realm: Realm, purge: OpenTtlDBOptions['purge']) {
  const there = await openIn(realm, { maxIntervalMs: 20, idleTimeoutMs: 5, ...purge })
  const here = await openOnPage(there.name)
  await there.call('putAll', 's', [{ id: 'there-1', ttl: 1 }, { id: 'there-2', ttl: 1 }, { id: 'kept', ttl: -1 }])
  await there.advance(5 * S)
  await until(async () => expect((await there.disk()).keys).toEqual(['kept']))
  await until(() => expect(heardKeys(here.heard).sort()).toEqual(['there-1', 'there-2']))
  expect(here.heard.every((event) => event.reason === 'expired' && event.store === 's')).toBe(true)

  // The realm's clock stays where it is: for it, these live for hours yet.
  await here.db.putAll('s', [{ id: 'here-1', ttl: 3600 }, { id: 'here-2', ttl: 3600 }])
  here.clock.advance(3601 * S)
  expect(await here.db.purgeExpired('s')).toBe(2)
  expect(await here.db.raw.getAllKeys('s')).toEqual(['kept'])
  await until(async () => expect(heardKeys((await there.heard()).expired).sort()).toEqual(['here-1', 'here-2', 'there-1', 'there-2']))
}
