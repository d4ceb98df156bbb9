/**
 * SPEC §12b "Scope": a store switched to another partition key value (one user signs out,
 * another signs in) or filter never shows, keeps or pushes an item of the old scope in the new
 * one; the old scope's writes not yet pushed wait on the device for their partition. In Node and
 * in every browser project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { manualClock } from '../helpers.js'
import { aheadClock } from './clock.js'
import { clientOf, newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

const ids = (items: { id: unknown }[]) => items.map((item) => item.id).sort()

describe('another partition key value', () => {
  test("shows none of the old partition's items, pushes none into the new one, and brings the old one's unpushed edits back with it (failure 5)", async () => {
    const { container } = await newContainer(port, -1)
    await container.items.create({ id: 'a', tenant: 't1', text: 't1 a' })
    await container.items.create({ id: 'b', tenant: 't1', text: 't1 b' })
    await container.items.create({ id: 'c', tenant: 't2', text: 't2 c' })
    const db = await openMirror(aheadClock())
    const t1 = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await t1.pull()
    expect(ids(await db.getAll('items'))).toEqual(['a', 'b'])
    // t1's edit, not pushed when t1 signs out.
    await db.put('items', { ...(await db.get('items', 'a'))!, text: 't1 edit' })
    t1.stop()

    const t2 = syncCosmos(db, 'items', container, { partitionKey: 't2' })
    await t2.pull()
    expect(ids(await db.getAll('items'))).toEqual(['c'])
    expect(await db.get('items', 'a')).toBeUndefined()
    // t2 edits its own item and writes one whose id t1 also has: each goes to t2's partition only.
    await db.put('items', { ...(await db.get('items', 'c'))!, text: 't2 edit' })
    await db.put('items', { id: 'b', text: 't2 b' })
    expect(await t2.push()).toBe(2)
    expect((await container.item('c', 't2').read()).resource).toMatchObject({ text: 't2 edit' })
    expect((await container.item('b', 't2').read()).resource).toMatchObject({ text: 't2 b' })
    expect((await container.item('b', 't1').read()).resource).toMatchObject({ text: 't1 b' })
    expect((await container.item('a', 't2').read()).statusCode).toBe(404)
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 't1 a' })
    t2.stop()

    // t1 signs in again: its unpushed edit is back, queued, and goes to t1's partition.
    const again = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await again.pull()
    expect(await db.get('items', 'a')).toMatchObject({ text: 't1 edit' })
    expect(await db.get('items', 'b')).toMatchObject({ text: 't1 b' })
    expect(await db.get('items', 'c')).toBeUndefined()
    expect(await again.push()).toBe(1)
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 't1 edit' })
    expect(await outbox(db)).toEqual([])
    db.close()
  })

  test("a write made right after the switch, before its first round, is the new partition's, even at the same millisecond as the last write before it", async () => {
    const { container } = await newContainer(port, -1)
    await container.items.create({ id: 'a', tenant: 't1' })
    // A clock that stands still: the write before the switch, the switch and the write after it
    // all read the same millisecond.
    const db = await openMirror(manualClock(Date.now()))
    const t1 = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await t1.pull()
    await db.put('items', { id: 'old', text: 'written by t1' })
    t1.stop()
    const t2 = syncCosmos(db, 'items', container, { partitionKey: 't2' })
    await db.put('items', { id: 'new', text: 'written by t2' })
    expect(await t2.push()).toBe(1)
    expect(ids(await db.getAll('items'))).toEqual(['new'])
    expect((await container.item('new', 't2').read()).resource).toMatchObject({ text: 'written by t2' })
    expect((await container.item('old', 't2').read()).statusCode).toBe(404)
    expect((await container.item('old', 't1').read()).statusCode).toBe(404)
    db.close()
  })

  /**
   * Found by the devices property (seed 20261206): the switch read the old partition's items
   * through the live view, so an item whose unpushed write had expired locally (a container TTL
   * of seconds) was neither parked nor deleted. The store's record stayed, and the new scope's
   * longer TTL brought it back to life: another tenant's item, shown.
   */
  test("an old partition's item whose unpushed write expired is parked like the others: a longer TTL in the new scope does not bring it back there", async () => {
    const short = (await newContainer(port, 5)).container
    const long = (await newContainer(port, -1)).container
    const clock = aheadClock()
    const db = await openMirror(clock)
    const t1 = syncCosmos(db, 'items', short, { partitionKey: 't1' })
    await t1.pull()
    expect(await db.getDefaultTtl('items')).toBe(5)
    await db.put('items', { id: 'a', text: "t1's, not pushed" })
    clock.advance(10_000)
    expect(await db.get('items', 'a')).toBeUndefined()
    t1.stop()

    const t2 = syncCosmos(db, 'items', long, { partitionKey: 't2' })
    await t2.pull()
    expect(await db.getDefaultTtl('items')).toBe(-1)
    expect(await db.getAll('items')).toEqual([])
    expect(await t2.push()).toBe(0)
    expect((await long.item('a', 't2').read()).statusCode).toBe(404)
    t2.stop()

    // Back in t1's partition: the write is queued again, its item dead there as before.
    const back = syncCosmos(db, 'items', short, { partitionKey: 't1' })
    await back.pull()
    expect(await db.get('items', 'a')).toBeUndefined()
    expect(await outbox(db)).toMatchObject([{ key: 'a', op: 'put' }])
    back.stop()
    db.close()
  })

  test('a record set aside in the old partition is parked with it, and listed again when it comes back', async () => {
    const { database } = await clientOf(port).databases.createIfNotExists({ id: 'test' })
    const id = `unique-${Math.random().toString(36).slice(2)}`
    await database.containers.create({ id, partitionKey: { paths: ['/tenant'] }, defaultTtl: -1, uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/email'] }] } })
    const container = database.container(id)
    await container.items.create({ id: 'taken', tenant: 't1', email: 'x@example.com' })
    const db = await openMirror(aheadClock())
    const t1 = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await db.put('items', { id: 'bad', email: 'x@example.com' })
    await t1.push()
    expect((await t1.rejected()).map((r) => r.key)).toEqual(['bad'])
    t1.stop()
    const t2 = syncCosmos(db, 'items', container, { partitionKey: 't2' })
    await t2.pull()
    expect(await t2.rejected()).toEqual([])
    expect(await db.get('items', 'bad')).toBeUndefined()
    expect(await t2.retry()).toBe(0)
    await t2.push()
    expect((await container.item('bad', 't2').read()).statusCode).toBe(404)
    t2.stop()
    const back = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await back.pull()
    expect((await back.rejected()).map((r) => r.key)).toEqual(['bad'])
    expect(await db.get('items', 'bad')).toMatchObject({ email: 'x@example.com' })
    db.close()
  })
})

describe('another filter', () => {
  test("leaves the items the new filter does not hold, keeps the unpushed writes, and pulls the new filter's", async () => {
    const { container } = await newContainer(port, -1)
    await container.items.create({ id: 'n1', tenant: 't1', kind: 'note' })
    await container.items.create({ id: 't1', tenant: 't1', kind: 'task' })
    const db = await openMirror(aheadClock())
    const notes = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: { where: 'c.kind = @kind', parameters: [{ name: '@kind', value: 'note' }] } })
    await notes.pull()
    await db.put('items', { id: 'n2', kind: 'note' })
    expect(ids(await db.getAll('items'))).toEqual(['n1', 'n2'])
    notes.stop()
    const tasks = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: { where: 'c.kind = @kind', parameters: [{ name: '@kind', value: 'task' }] } })
    await tasks.pull()
    expect(ids(await db.getAll('items'))).toEqual(['n2', 't1'])
    expect(await tasks.push()).toBe(1)
    expect((await container.item('n2', 't1').read()).resource).toMatchObject({ kind: 'note' })
    db.close()
  })
})
