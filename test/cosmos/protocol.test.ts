/**
 * SPEC §12b against the in-process Cosmos DB server: edits are edits, each item's own partition
 * key, records the server refuses set aside, conditional conflict decisions, transient failures
 * within `maxWaitMs`, and the server's clock. In Node and in every browser project alike
 * (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer, TENANT_USER } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

describe('edits are edits', () => {
  test("an edit of a pulled item carrying its server _ts restarts the countdown, and is pushed as the edit", async () => {
    const { container } = await newContainer(port, -1)
    const { resource } = await container.items.create({ id: 'a', tenant: 't1', text: 'old', ttl: 10 })
    const clock = aheadClock()
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', softDelete: false })
    await sync.pull()
    const pulled = await db.get('items', 'a')
    expect(pulled).toMatchObject({ _ts: resource!._ts })
    clock.advance(8_000)
    await db.put('items', { ...pulled!, text: 'new' })
    const edited = await db.get('items', 'a')
    expect(edited!._ts).toBe(Math.floor(clock() / 1000))
    // Past the pulled copy's countdown, within the edit's.
    clock.advance(5_000)
    expect(await db.get('items', 'a')).toMatchObject({ text: 'new' })
    await sync.push()
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 'new', ttl: 10 })
    expect(await outbox(db)).toEqual([])
    db.close()
  })
})

describe("each item's own partition key", () => {
  test('a whole-container mirror deletes in the item\'s partition: as a tombstone, and as a plain delete', async () => {
    const { container } = await newContainer(port, 60)
    await container.items.create({ id: 'a', tenant: 't1' })
    await container.items.create({ id: 'b', tenant: 't2' })
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container)
    await sync.pull()
    await db.delete('items', 'a')
    await sync.push()
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ tenant: 't1', deleted: true, ttl: 60 })
    sync.stop()
    const hard = syncCosmos(db, 'items', container, { softDelete: false })
    await db.delete('items', 'b')
    await hard.push()
    expect((await container.item('b', 't2').read()).statusCode).toBe(404)
    // Nothing went elsewhere: the tombstone is the only item left.
    expect((await container.items.query('SELECT c.id, c.tenant FROM c').fetchAll()).resources).toEqual([{ id: 'a', tenant: 't1' }])
    expect(await outbox(db)).toEqual([])
    db.close()
  })

  test('a hierarchical key: a conflict reads, and a tombstone replaces, with every level of the item\'s key', async () => {
    const { container } = await newContainer(port, 60, TENANT_USER)
    await container.items.create({ id: 'a', tenant: 't1', user: 'u1', v: 1 })
    await container.items.create({ id: 'b', tenant: 't1', user: 'u2', v: 1 })
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', onConflict: () => 'server' })
    expect(await sync.pull()).toBe(2)
    await container.items.upsert({ id: 'a', tenant: 't1', user: 'u1', v: 'server' })
    await db.put('items', { id: 'a', tenant: 't1', user: 'u1', v: 'local' })
    await db.delete('items', 'b')
    expect(await sync.push()).toBe(2)
    expect(await db.get('items', 'a')).toMatchObject({ v: 'server' })
    expect((await container.item('b', ['t1', 'u2']).read()).resource).toMatchObject({ tenant: 't1', user: 'u2', deleted: true })
    db.close()
  })
})
