// SPEC §7 touchOnRead: a read of a live item restarts its countdown; reads stay reads.
import { openDB } from 'idb'
import { expect, test } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { deleteAfter, expectDomError, expectTtlError, SECOND, T0 } from './support.js'

const TS0 = T0 / SECOND
const stores = {
  sessions: { keyPath: 'id', defaultTtl: 10, touchOnRead: true, indexes: { byUser: { keyPath: 'user' } } },
  plain: { keyPath: 'id', defaultTtl: 10 },
}

async function open() {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores })
  return { clock, db }
}

test('an item read every ttl - 1 s never expires; once reads stop it expires ttl after the last read', async () => {
  const { clock, db } = await open()
  await db.put('sessions', { id: 'a', user: 'u' })
  for (let i = 1; i <= 5; i++) {
    clock.advance(9 * SECOND)
    expect(await db.get('sessions', 'a'), `read ${i}`).toEqual({ id: 'a', user: 'u', _ts: TS0 + 9 * i })
  }
  const lastRead = clock.now
  clock.set(lastRead + 10 * SECOND - 1)
  expect(await db.count('sessions'), 'count touches nothing, and sees the item live').toBe(1)
  clock.set(lastRead + 10 * SECOND)
  expect(await db.count('sessions')).toBe(0)
  expect(await db.get('sessions', 'a')).toBeUndefined()
})

test.for([
  { name: 'getAll', read: (db: any) => db.getAll('sessions') },
  { name: 'getAll with a range', read: (db: any) => db.getAll('sessions', IDBKeyRange.bound('a', 'z')) },
  { name: 'get with a range', read: (db: any) => db.get('sessions', IDBKeyRange.lowerBound('a')) },
  { name: 'getFromIndex', read: (db: any) => db.getFromIndex('sessions', 'byUser', 'u') },
  { name: 'getAllFromIndex', read: (db: any) => db.getAllFromIndex('sessions', 'byUser') },
  { name: 'iterate', read: async (db: any) => { for await (const _ of db.iterate('sessions', null, 1)); } },
])('$name touches what it returns', async ({ read }) => {
  const { clock, db } = await open()
  await db.put('sessions', { id: 'a', user: 'u' })
  clock.advance(9 * SECOND)
  await read(db)
  clock.advance(9 * SECOND)
  expect(await db.getAllKeys('sessions')).toEqual(['a'])
  clock.advance(SECOND)
  expect(await db.getAllKeys('sessions')).toEqual([])
})

test('count, getAllKeys and stats touch nothing; a store without touchOnRead does not slide', async () => {
  const { clock, db } = await open()
  await db.putAll('sessions', [{ id: 'a' }])
  await db.putAll('plain', [{ id: 'a' }])
  clock.advance(9 * SECOND)
  await db.count('sessions')
  await db.getAllKeys('sessions')
  await db.stats('sessions')
  await db.get('plain', 'a')
  clock.advance(SECOND)
  expect(await db.get('sessions', 'a')).toBeUndefined()
  expect(await db.get('plain', 'a')).toBeUndefined()
})

test('a purge right after a read does not delete the touched item', async () => {
  const { clock, db } = await open()
  await db.putAll('sessions', [{ id: 'read' }, { id: 'unread' }])
  clock.advance(SECOND)
  await db.get('sessions', 'read')
  clock.advance(9 * SECOND)
  expect(await db.purgeExpired('sessions')).toBe(1)
  expect(await db.raw.getAllKeys('sessions')).toEqual(['read'])
  expect(await db.raw.get('sessions', 'read')).toMatchObject({ _ts: TS0 + 1 })
})

test('writes judge a touched item live: update finds it, add over its key and a claim leave it alone', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true, indexes: { byEmail: { keyPath: 'email', unique: true } } } } })
  await db.putAll('s', [{ id: 'a', email: 'a@x' }, { id: 'b', email: 'b@x' }])
  // Read long before the old expiry, so the touches are still pending (written within 1 s).
  clock.advance(SECOND)
  await db.get('s', 'a')
  await db.get('s', 'b')
  clock.advance(9 * SECOND)
  await expectDomError(db.add('s', { id: 'a' }), 'ConstraintError')
  await expectDomError(db.put('s', { id: 'c', email: 'a@x' }), 'ConstraintError')
  expect(await db.update('s', 'b', { v: 1 })).toMatchObject({ id: 'b', v: 1, _ts: TS0 + 10 })
  expect(await db.getAllKeys('s')).toEqual(['a', 'b'])
})

test('a change of default right after a read counts the touch', async () => {
  const { clock, db } = await open()
  await db.putAll('sessions', [{ id: 'read' }, { id: 'unread' }])
  clock.advance(SECOND)
  await db.get('sessions', 'read')
  clock.advance(9 * SECOND)
  await db.setDefaultTtl('sessions', 100)
  expect(await db.getAllKeys('sessions'), 'unread died under 10 s and stays dead').toEqual(['read'])
})

test('touches reach the disk, at the latest when the handle closes', async () => {
  const name = deleteAfter(uniqueName('sliding'))
  const clock = manualClock(T0)
  const db = await openTtlDB(name, { version: 1, clock, stores, purge: { mode: 'off' } })
  await db.put('sessions', { id: 'a' })
  clock.advance(5 * SECOND)
  await db.get('sessions', 'a')
  db.close()
  const raw = await openDB(name)
  expect(await raw.get('sessions', 'a')).toMatchObject({ _ts: TS0 + 5 })
  raw.close()
})

test('touchOnRead needs an in-line keyPath and a boolean', async () => {
  await expectTtlError(freshDB({ stores: { s: { defaultTtl: 10, touchOnRead: true } } }), 'INVALID_OPTION')
  await expectTtlError(freshDB({ stores: { s: { keyPath: 'id', touchOnRead: 1 as never } } }), 'INVALID_OPTION')
})

test.for([
  { name: 'default -1', defaultTtl: -1 },
  { name: 'TTL off', defaultTtl: null },
])('a read touches an item that never expires at the moment ($name): a later default counts from the read', async ({ defaultTtl }) => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl, touchOnRead: true } } })
  await db.put('s', { id: 'a' })
  clock.advance(100 * SECOND)
  expect(await db.get('s', 'a'), 'the read returns the touched _ts').toEqual({ id: 'a', _ts: TS0 + 100 })
  clock.advance(SECOND)
  await db.setDefaultTtl('s', 60)
  // getAllKeys touches nothing: the item lives 60 s from the read, not from its write (long dead).
  expect(await db.getAllKeys('s'), 'read a second before the default came in').toEqual(['a'])
  clock.set(T0 + 159 * SECOND)
  expect(await db.getAllKeys('s')).toEqual(['a'])
  clock.set(T0 + 160 * SECOND)
  expect(await db.getAllKeys('s')).toEqual([])
})
