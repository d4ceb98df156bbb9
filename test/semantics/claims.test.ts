// Writes at the edges: room made only from dead holders, all or nothing, and what they report.
import { expect, test, vi } from 'vitest'
import type { PurgeReport } from '../../src/index.js'
import { freshDB, manualClock } from '../helpers.js'
import { expectDomError, expectTtlError, rawAll, rawKeys, SECOND, T0 } from './support.js'

const stores = {
  u: { keyPath: 'id', defaultTtl: 10, indexes: { byEmail: { keyPath: 'email', unique: true }, byTag: { keyPath: 'tags', unique: true, multiEntry: true } } },
}

async function withDeadItems(count: number) {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores })
  await db.putAll('u', Array.from({ length: count }, (_, i) => ({ id: `dead-${i}`, email: `d${i}@x` })))
  await db.put('u', { id: 'live', email: 'live@x', ttl: 100 })
  clock.advance(10 * SECOND)
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  return { db, clock, reports }
}

test('an add refused for a live key deletes nothing and reports nothing', async () => {
  const { db, reports } = await withDeadItems(20)
  const before = await rawAll(db, 'u')
  await expectDomError(db.add('u', { id: 'live', email: 'other@x' }), 'ConstraintError')
  await expectDomError(db.put('u', { id: 'new', email: 'live@x' }), 'ConstraintError')
  expect(await rawAll(db, 'u'), 'the dead items stay for the purge').toEqual(before)
  expect(reports).toEqual([])
})

test('a write claims only the dead holders it needs, in its own transaction, and reports them', async () => {
  const { db, reports } = await withDeadItems(20)
  await db.add('u', { id: 'dead-3', email: 'd7@x' })
  const keys = await rawKeys(db, 'u')
  expect(keys).toHaveLength(20)
  expect(keys).not.toContain('dead-7')
  expect(await db.getFromIndex('u', 'byEmail', 'd7@x')).toMatchObject({ id: 'dead-3' })
  expect(reports).toEqual([expect.objectContaining({ store: 'u', deleted: 2 })])
})

test('a multiEntry unique value held by a dead item is claimed', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores })
  await db.put('u', { id: 'a', tags: ['x', 'y'], ttl: 5 })
  clock.advance(5 * SECOND)
  await db.put('u', { id: 'b', tags: ['z', 'y'] })
  expect(await db.getAllKeysFromIndex('u', 'byTag')).toEqual(['b', 'b'])
  expect(await rawKeys(db, 'u')).toEqual(['b'])
})

test('a batch claiming room and then hitting a live holder writes nothing and deletes nothing', async () => {
  const { db, reports } = await withDeadItems(3)
  const before = await rawAll(db, 'u')
  await expectDomError(db.putAll('u', [{ id: 'n1', email: 'd1@x' }, { id: 'n2', email: 'live@x' }]), 'ConstraintError')
  expect(await rawAll(db, 'u')).toEqual(before)
  expect(reports).toEqual([])
})

test('update(fn) calls fn once when its write must claim room from a dead holder', async () => {
  const { db } = await withDeadItems(1)
  const fn = vi.fn((item: Record<string, unknown>) => ({ ...item, email: 'd0@x' }))
  await db.update('u', 'live', fn)
  expect(fn).toHaveBeenCalledTimes(1)
  expect(await db.getFromIndex('u', 'byEmail', 'd0@x')).toMatchObject({ id: 'live' })
})

test('putAll with a hole in the array writes nothing and names the item', async () => {
  const db = await freshDB({ clock: manualClock(T0), stores })
  // eslint-disable-next-line no-sparse-arrays
  const values = [{ id: 'a' }, , { id: 'c' }] as { id: string }[]
  const error = await db.putAll('u', values).catch((e: unknown) => e)
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_VALUE', message: expect.stringContaining('item 1') })
  expect(await rawKeys(db, 'u')).toEqual([])
})

test('an invalid ttl in putAll names the store and the item', async () => {
  const db = await freshDB({ clock: manualClock(T0), stores })
  const error = await db.putAll('u', [{ id: 'a' }, { id: 'b', ttl: 0 }]).catch((e: unknown) => e)
  expect(error).toMatchObject({ code: 'INVALID_TTL', message: expect.stringMatching(/store "u", item 1: ttl must be/) })
  await expectTtlError(db.put('u', { id: 'c', ttl: 'x' }), 'INVALID_TTL')
  expect(await rawKeys(db, 'u')).toEqual([])
})

test('a ttl inherited through the prototype is not the item\'s: it is neither stored nor honoured', async () => {
  const clock = manualClock(T0)
  const db = await freshDB({ clock, stores })
  await db.put('u', Object.assign(Object.create({ ttl: 2 }), { id: 'a' }))
  clock.advance(2 * SECOND)
  expect(await db.get('u', 'a'), 'lives by the store default, as stored').toEqual({ id: 'a', _ts: T0 / SECOND })
  clock.advance(8 * SECOND)
  expect(await db.get('u', 'a')).toBeUndefined()
})
