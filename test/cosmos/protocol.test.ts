/**
 * SPEC §12b against the in-process Cosmos DB server: edits are edits, each item's own partition
 * key, records the server refuses set aside, conditional conflict decisions, transient failures
 * within `maxWaitMs`, and the server's clock. In Node and in every browser project alike
 * (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { clientOf, newContainer, TENANT_USER } from './containers.js'
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
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ tenant: 't1', _idbTtlDeleted: true, ttl: 60 })
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
    expect((await container.item('b', ['t1', 'u2']).read()).resource).toMatchObject({ tenant: 't1', user: 'u2', _idbTtlDeleted: true })
    db.close()
  })
})

describe('one bad record blocks nothing', () => {
  /** A container whose items have unique `email`s in a partition: a clash is a 409 the server answers for the record itself. */
  async function uniqueEmails() {
    const { database } = await clientOf(port).databases.createIfNotExists({ id: 'test' })
    const id = `unique-${Math.random().toString(36).slice(2)}`
    await database.containers.create({ id, partitionKey: { paths: ['/tenant'] }, defaultTtl: -1, uniqueKeyPolicy: { uniqueKeys: [{ paths: ['/email'] }] } })
    return database.container(id)
  }

  test('a record the server refuses is set aside with its answer; the records after it are pushed; retry and discard', async () => {
    const container = await uniqueEmails()
    await container.items.create({ id: 'taken', tenant: 't1', email: 'x@example.com' })
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await db.put('items', { id: 'a', email: 'a@example.com' })
    await db.put('items', { id: 'bad', email: 'x@example.com' })
    await db.put('items', { id: 'c', email: 'c@example.com' })
    expect(await sync.push()).toBe(3)
    const ids = async () => (await container.items.query('SELECT VALUE c.id FROM c').fetchAll()).resources.sort()
    expect(await ids()).toEqual(['a', 'c', 'taken'])
    expect(await sync.rejected()).toEqual([{ key: 'bad', op: 'put', at: expect.any(Number), status: 409, message: expect.stringContaining('already exists') }])
    expect(sync.status).toMatchObject({ state: 'idle', pending: 0, rejected: 1 })
    expect(await outbox(db)).toEqual([])
    // The local write stays, unpushed; a retry meets the same answer.
    expect(await db.get('items', 'bad')).toMatchObject({ email: 'x@example.com' })
    expect(await sync.retry('bad')).toBe(1)
    expect(sync.status).toMatchObject({ pending: 1, rejected: 0 })
    await sync.push()
    expect((await sync.rejected()).map((r) => r.key)).toEqual(['bad'])
    // Freed on the server: the retry goes through.
    await container.item('taken', 't1').delete()
    expect(await sync.retry()).toBe(1)
    await sync.push()
    expect(await sync.rejected()).toEqual([])
    expect(await ids()).toEqual(['a', 'bad', 'c'])
    // Discard: the server's copy comes back in place of the refused edit.
    await db.put('items', { id: 'c', email: 'a@example.com' })
    await sync.push()
    expect((await sync.rejected()).map((r) => r.key)).toEqual(['c'])
    expect(await sync.discard('c')).toBe(true)
    expect(await db.get('items', 'c')).toMatchObject({ email: 'c@example.com' })
    expect(await sync.rejected()).toEqual([])
    expect(sync.status.rejected).toBe(0)
    expect(await sync.discard('c')).toBe(false)
    db.close()
  })

  test('an id Cosmos DB cannot store is refused at write time, and nothing is written or queued', async () => {
    const { container } = await newContainer(port, -1)
    const db = await openMirror(aheadClock())
    syncCosmos(db, 'items', container, { partitionKey: 't1' })
    for (const id of [1, 'a/b', 'a\\b', 'a?b', 'a#b', 'é'.repeat(512)]) {
      await expect(db.put('items', { id } as never), String(id)).rejects.toMatchObject({ name: 'TtlError', code: 'INVALID_VALUE', message: expect.stringContaining('Cosmos DB cannot store') })
    }
    await expect(db.putAll('items', [{ id: 'fine' }, { id: 'not/fine' }])).rejects.toMatchObject({ code: 'INVALID_VALUE' })
    expect(await db.getAllKeys('items')).toEqual([])
    expect(await outbox(db)).toEqual([])
    await db.put('items', { id: 'é'.repeat(511) })
    expect(await outbox(db)).toHaveLength(1)
    db.close()
  })
})

describe('conflicts', () => {
  test('a decision is written on the condition that the server copy is still the one it saw; else it is taken again', async () => {
    const { container } = await newContainer(port, -1)
    await container.items.create({ id: 'a', tenant: 't1', tags: ['x'] })
    const seen: unknown[] = []
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container, {
      partitionKey: 't1',
      onConflict: async ({ local, server }) => {
        seen.push(server?.tags)
        // The app asks the user; meanwhile another device writes, once.
        if (seen.length === 1) await container.items.upsert({ id: 'a', tenant: 't1', tags: ['x', 'server', 'later'] })
        return { ...server!, tags: [...(server!.tags as string[]), ...(local!.tags as string[])] }
      },
    })
    await sync.pull()
    await container.items.upsert({ id: 'a', tenant: 't1', tags: ['x', 'server'] })
    await db.put('items', { id: 'a', tags: ['local'] })
    await sync.push()
    expect(seen).toEqual([['x', 'server'], ['x', 'server', 'later']])
    const merged = (await container.item('a', 't1').read()).resource
    expect(merged.tags).toEqual(['x', 'server', 'later', 'local'])
    expect(await db.get('items', 'a')).toMatchObject({ tags: merged.tags, _etag: merged._etag })
    db.close()
  })
})

describe("the server's clock", () => {
  test('on a device whose clock is minutes off either way, a pulled copy leaves local reads within 2 s of the server copy\'s expiry', async () => {
    for (const offset of [-5 * 60_000, 7 * 60_000]) {
      const { container } = await newContainer(port, 60)
      const { resource } = await container.items.create({ id: 'a', tenant: 't1' })
      const clock = aheadClock()
      clock.advance(offset)
      const db = await openMirror(clock)
      await syncCosmos(db, 'items', container, { partitionKey: 't1' }).pull()
      // The instant the server's copy expires, on the device's clock.
      const expires = (resource!._ts + 60) * 1000 + offset
      clock.advance(expires - 2000 - clock())
      expect(await db.get('items', 'a'), `${offset}: 2 s before`).toMatchObject({ id: 'a' })
      clock.advance(expires + 2000 - clock())
      expect(await db.get('items', 'a'), `${offset}: 2 s after`).toBeUndefined()
      db.close()
    }
  })

  test("a device clock 2 minutes fast keeps the user's own item after its push as long as the server does (failure 9)", async () => {
    const { container } = await newContainer(port, -1)
    const clock = aheadClock()
    clock.advance(120_000)
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await db.put('items', { id: 'mine', ttl: 60 })
    await sync.push()
    const { resource } = await container.item('mine', 't1').read()
    expect(await db.get('items', 'mine')).toMatchObject({ _etag: resource._etag })
    const expires = (resource._ts + 60) * 1000 + 120_000
    clock.advance(expires - 2000 - clock())
    expect(await db.get('items', 'mine')).toMatchObject({ id: 'mine' })
    clock.advance(expires + 2000 - clock())
    expect(await db.get('items', 'mine')).toBeUndefined()
    db.close()
  })
})
