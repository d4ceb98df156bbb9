/**
 * SPEC §12b, deletes and scope: a device offline for longer than a tombstone lives still removes
 * what was deleted meanwhile, on its next pull, by itself; an item that leaves a filtered mirror's
 * scope on the server (changed, or replaced by a tombstone without the filter's fields) leaves the
 * store at the next pull. In Node and in every browser project (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

const TOMBSTONE_TTL = 60

test('a device offline longer than a tombstone lives removes the item another device deleted, on its next plain pull', async () => {
  const { container } = await newContainer(port, -1)
  for (const id of ['a', 'b']) await container.items.create({ id, tenant: 't1' })
  const clock = aheadClock()
  const here = await openMirror(clock)
  const other = await openMirror(clock)
  const options = { partitionKey: 't1', softDelete: { field: '_deleted', ttl: TOMBSTONE_TTL } }
  const mine = syncCosmos(here, 'items', container, options)
  const theirs = syncCosmos(other, 'items', container, options)
  await mine.pull()
  await theirs.pull()
  // The other device deletes a: its tombstone reaches the server…
  await other.delete('items', 'a')
  await theirs.push()
  // …and the server removes it ttl seconds later (the test server keeps it: removed by hand).
  await container.item('a', 't1').delete()
  // This device was offline all that time: its next round starts a tombstone's life later.
  clock.advance(TOMBSTONE_TTL * 1000)
  await mine.pull()
  expect(await here.getAllKeys('items')).toEqual(['b'])
  here.close()
  other.close()
})

test('within a tombstone’s life of the last round, a plain pull stays incremental (a delete without tombstone stays); past it, the pull is full', async () => {
  const { container } = await newContainer(port, -1)
  for (const id of ['a', 'b']) await container.items.create({ id, tenant: 't1' })
  const clock = aheadClock()
  const db = await openMirror(clock)
  const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', softDelete: { field: '_deleted', ttl: TOMBSTONE_TTL } })
  await sync.pull()
  // Deleted without a tombstone: only a full pull can see it, and none is due yet.
  await container.item('a', 't1').delete()
  clock.advance((TOMBSTONE_TTL - 5) * 1000)
  await sync.pull()
  expect(await db.getAllKeys('items')).toEqual(['a', 'b'])
  // A tombstone's life after the round before began: this one is full.
  clock.advance(TOMBSTONE_TTL * 1000)
  await sync.pull()
  expect(await db.getAllKeys('items')).toEqual(['b'])
  db.close()
})

test('an item that no longer matches the filter on the server leaves a filtered mirror at the next pull; a tombstone without the filter’s fields deletes', async () => {
  const { container } = await newContainer(port, -1)
  for (const id of ['a', 'b', 'c', 'd']) await container.items.create({ id, tenant: 't1', kind: 'todo' })
  await container.items.create({ id: 'other', tenant: 't1', kind: 'note' })
  const clock = aheadClock()
  const db = await openMirror(clock)
  const filter = { where: 'c.kind = @kind', parameters: [{ name: '@kind', value: 'todo' }] }
  const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', filter })
  await sync.pull()
  expect(await db.getAllKeys('items')).toEqual(['a', 'b', 'c', 'd'])
  await container.items.upsert({ id: 'a', tenant: 't1', kind: 'done' }) // no longer matches
  await container.items.upsert({ id: 'b', tenant: 't1' }) // lost the field the filter reads
  await container.items.upsert({ id: 'c', tenant: 't1', _idbTtlDeleted: true, ttl: 60 }) // another client's tombstone
  await container.items.upsert({ id: 'd', tenant: 't1', kind: 'todo', text: 'still in scope' })
  await sync.pull()
  expect(await db.getAllKeys('items')).toEqual(['d'])
  expect(await db.get('items', 'd')).toMatchObject({ text: 'still in scope' })
  // Back in scope: pulled again.
  await container.items.upsert({ id: 'a', tenant: 't1', kind: 'todo', back: true })
  await sync.pull()
  expect(await db.get('items', 'a')).toMatchObject({ back: true })
  db.close()
})

test('an app’s own `deleted` flag is data, not a tombstone: the item stays in the mirror; the default tombstone field is one apps do not use', async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'trash', tenant: 't1', deleted: true, text: 'in the app’s trash can' })
  const db = await openMirror(aheadClock())
  const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
  await sync.pull()
  expect(await db.get('items', 'trash')).toMatchObject({ deleted: true, text: 'in the app’s trash can' })
  await db.delete('items', 'trash')
  await sync.push()
  expect((await container.item('trash', 't1').read()).resource).toMatchObject({ _idbTtlDeleted: true })
  db.close()
})
