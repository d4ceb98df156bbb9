/**
 * SPEC §12 against the in-process Cosmos DB server: pull and push round trips, the container's
 * defaultTtl, a kept `_ts` honoured to the second, resume after a reload, bad input. In Node and
 * in every browser project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openDB } from 'idb'
import { syncCosmos, type SyncStatus } from '../../src/cosmos/index.js'
import { openTtlDB, TtlError } from '../../src/index.js'
import { uniqueName } from '../helpers.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox, STORES } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

const strip = ({ _rid, _self, _attachments, ...rest }: Record<string, unknown>) => rest

describe('pull', () => {
  test("brings the container's defaultTtl and its items with the server's _ts, _etag and ttl", async () => {
    const { container } = await newContainer(port, 60)
    await container.items.create({ id: 'a', tenant: 't1', n: 1, ttl: 10 })
    await container.items.create({ id: 'b', tenant: 't1', n: 2 })
    await container.items.create({ id: 'other', tenant: 't2', n: 3 })
    const clock = aheadClock()
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    expect(await sync.pull()).toBe(2)
    expect(await db.getDefaultTtl('items')).toBe(60)
    const server = (await container.items.query({ query: 'SELECT * FROM c WHERE c.tenant = "t1"' }).fetchAll()).resources
    const local = await db.getAll('items')
    expect(local.map(strip)).toEqual(server.map(strip).sort((x, y) => String(x.id).localeCompare(String(y.id))))
    const a = server.find((item) => item.id === 'a')!
    expect(await db.expiresAt('items', 'a')).toBe((a._ts + 10) * 1000)
    expect(await db.expiresAt('items', 'b')).toBe((server.find((item) => item.id === 'b')!._ts + 60) * 1000)
    // Nothing changed on the server: a second round brings nothing (the second's items are skipped by _etag).
    expect(await sync.pull()).toBe(0)
    db.close()
  })

  test('follows the container: absent defaultTtl is null, -1 stays -1', async () => {
    for (const [ttl, expected] of [[undefined, null], [-1, -1]] as const) {
      const { container } = await newContainer(port, ttl)
      const db = await openTtlDB(uniqueName('cosmos'), { version: 1, stores: { items: { keyPath: 'id', keepTs: true, defaultTtl: 5 } }, purge: { mode: 'off' } })
      await syncCosmos(db, 'items', container).pull()
      expect(await db.getDefaultTtl('items')).toBe(expected)
      db.close()
    }
  })

  test("a kept _ts is honoured to the second: the copy dies at the server's _ts + ttl, offline or not", async () => {
    const { container } = await newContainer(port, -1)
    const { resource } = await container.items.create({ id: 'a', tenant: 't1', ttl: 5 })
    const ts = resource!._ts
    // A device in step with the server (test/cosmos/protocol.test.ts has one that is not): the
    // copy's expiry depends on the kept _ts alone, not on when it arrived. The clock follows real
    // time until it is set: one stopped at the start fell behind the server's by however long the
    // open and the pull took, and over 0.5 s (WebKit on disk) the pull learned an offset of a
    // second from the server's `date`, moving the copy's _ts.
    let setAt: number | undefined
    const clock = () => setAt ?? Date.now()
    const db = await openMirror(clock)
    await syncCosmos(db, 'items', container, { partitionKey: 't1' }).pull()
    setAt = (ts + 5) * 1000 - 1
    expect(await db.get('items', 'a')).toMatchObject({ id: 'a', _ts: ts })
    setAt = (ts + 5) * 1000
    expect(await db.get('items', 'a')).toBeUndefined()
    expect(await db.count('items')).toBe(0)
    db.close()
  })

  test('resumes from the checkpoint kept in the database after a reload', async () => {
    const { container } = await newContainer(port, -1)
    for (let i = 0; i < 5; i++) await container.items.create({ id: `a${i}`, tenant: 't1' })
    const clock = aheadClock()
    const name = uniqueName('cosmos')
    let db = await openMirror(clock, name)
    expect(await syncCosmos(db, 'items', container, { partitionKey: 't1' }).pull()).toBe(5)
    // The reload, within the test's page (or process): the connection closes, and a new one with a
    // new mirror opens the same database; only what is on disk carries over.
    db.close()
    await container.items.create({ id: 'new', tenant: 't1' })
    await container.items.upsert({ id: 'a0', tenant: 't1', changed: true })
    db = await openMirror(clock, name)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    const queries: string[] = []
    const spy = container.items.query.bind(container.items)
    container.items.query = ((q: { query: string; parameters: { name: string; value: unknown }[] }, o: unknown) => {
      queries.push(`${q.query} from ${q.parameters[0].value}`)
      return spy(q as never, o as never)
    }) as typeof container.items.query
    expect(await sync.pull()).toBe(2)
    // Resumed at the last _ts seen, not at 0.
    expect(queries[0]).not.toMatch(/from 0$/)
    expect(await db.get('items', 'a0')).toMatchObject({ changed: true })
    expect(await db.count('items')).toBe(6)
    db.close()
  })

  test('a tombstone deletes the local copy; a full pull deletes what the server lost without one', async () => {
    const { container } = await newContainer(port, 60)
    for (const id of ['a', 'b', 'c']) await container.items.create({ id, tenant: 't1' })
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await sync.pull()
    await container.items.upsert({ id: 'a', tenant: 't1', _idbTtlDeleted: true, ttl: 60 })
    await container.item('b', 't1').delete()
    await sync.pull()
    // The server's change feed and _ts queries show no hard delete: b stays until a full pull.
    expect(await db.getAllKeys('items')).toEqual(['b', 'c'])
    await sync.pull({ full: true })
    expect(await db.getAllKeys('items')).toEqual(['c'])
    db.close()
  })
})

describe('push', () => {
  test("sends local writes; the local item then has the server's _ts and _etag", async () => {
    const { container } = await newContainer(port, 60)
    const clock = aheadClock()
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    const seen: SyncStatus[] = []
    sync.onStatus((s) => seen.push(s))
    await db.put('items', { id: 'a', n: 1, ttl: 30 })
    await db.put('items', { id: 'b', n: 2 })
    expect(await sync.push()).toBe(2)
    const { resource } = await container.item('a', 't1').read()
    expect(resource).toMatchObject({ id: 'a', tenant: 't1', n: 1, ttl: 30 })
    expect(await db.get('items', 'a')).toMatchObject({ _ts: resource._ts, _etag: resource._etag, tenant: 't1' })
    expect(await outbox(db)).toEqual([])
    // The status counts what a batch of the outbox sent, once its answers are written back.
    expect(seen.map((s) => s.state)).toEqual(['idle', 'pushing', 'pushing', 'idle'])
    expect(seen.at(-1)).toMatchObject({ state: 'idle', pending: 0, pushed: 2 })
    // An edit of a pushed item goes with If-Match on the etag the push brought back.
    await db.put('items', { id: 'a', n: 3 })
    await sync.push()
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ n: 3 })
    db.close()
  })

  test('every local write is queued in its own transaction: update, touch, clear, db.transaction', async () => {
    const { container } = await newContainer(port, -1)
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', softDelete: false })
    await db.putAll('items', [{ id: 'a' }, { id: 'b' }, { id: 'c' }])
    await db.update('items', 'a', { n: 1 })
    await db.touch('items', 'b')
    await db.transaction(['items'], 'readwrite', async (tx) => {
      await tx.put('items', { id: 'd', n: 4 })
      await tx.delete('items', 'c')
    })
    expect((await outbox(db)).map((r) => (r as { key: string; op: string }).key + ' ' + (r as { op: string }).op)).toEqual(['a put', 'b put', 'd put', 'c delete'])
    expect(await sync.push()).toBe(4)
    const ids = async () => (await container.items.query('SELECT c.id, c.n FROM c').fetchAll()).resources.sort((x, y) => x.id.localeCompare(y.id))
    expect(await ids()).toEqual([{ id: 'a', n: 1 }, { id: 'b' }, { id: 'd', n: 4 }])
    // A transaction that fails queues nothing.
    await expect(db.transaction(['items'], 'readwrite', async (tx) => {
      await tx.put('items', { id: 'e' })
      throw new Error('changed my mind')
    })).rejects.toThrow('changed my mind')
    await db.clear('items')
    expect(await outbox(db)).toHaveLength(3)
    await sync.push()
    expect(await ids()).toEqual([])
    db.close()
  })

  test('a local delete is pushed: as a tombstone by default, as a delete with softDelete: false', async () => {
    const { container } = await newContainer(port, 60)
    const clock = aheadClock()
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await db.put('items', { id: 'a' })
    await db.put('items', { id: 'b' })
    await sync.push()
    await db.delete('items', 'a')
    await sync.push()
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ _idbTtlDeleted: true, ttl: 60 })
    sync.stop()
    const hard = syncCosmos(db, 'items', container, { partitionKey: 't1', softDelete: false })
    await db.delete('items', 'b')
    await hard.push()
    expect((await container.item('b', 't1').read()).statusCode).toBe(404)
    expect(await db.getAllKeys('items')).toEqual([])
    db.close()
  })

  test('a write made while its earlier version is being pushed is not overwritten by the answer, and goes next', async () => {
    const { container } = await newContainer(port, 60)
    const clock = aheadClock()
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await db.put('items', { id: 'a', n: 1 })
    const create = container.items.create.bind(container.items)
    container.items.create = (async (body: never, options: never) => {
      const answer = await create(body, options)
      await db.put('items', { id: 'a', n: 2 })
      return answer
    }) as typeof container.items.create
    expect(await sync.push()).toBe(2)
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ n: 2 })
    expect(await db.get('items', 'a')).toMatchObject({ n: 2 })
    db.close()
  })

  test('a put whose item expired locally before the push is sent as a delete', async () => {
    const { container } = await newContainer(port, 60)
    const clock = aheadClock()
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', softDelete: false })
    await db.put('items', { id: 'a', ttl: 10 })
    await sync.push()
    await db.put('items', { id: 'a', ttl: 10, n: 2 })
    clock.advance(11_000)
    await sync.push()
    expect((await container.item('a', 't1').read()).statusCode).toBe(404)
    db.close()
  })
})

describe('bad input', () => {
  test('a store without keyPath id and keepTs, an unknown option, a non-container: INVALID_OPTION', async () => {
    const { container } = await newContainer(port)
    const db = await openTtlDB(uniqueName('cosmos'), { version: 1, stores: { ...STORES, plain: { keyPath: 'id' } }, purge: { mode: 'off' } })
    const code = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        expect(error).toBeInstanceOf(TtlError)
        return [(error as TtlError).code, (error as Error).message]
      }
      return ['no error']
    }
    expect(code(() => syncCosmos(db, 'plain', container))).toEqual(['INVALID_OPTION', expect.stringContaining('keepTs: true')])
    expect(code(() => syncCosmos(db, 'nope', container))).toEqual(['UNKNOWN_STORE', expect.stringContaining('"nope"')])
    expect(code(() => syncCosmos(db, 'items', {} as never))).toEqual(['INVALID_OPTION', expect.stringContaining('Container')])
    expect(code(() => syncCosmos(db, 'items', container, { partitonKey: 'x' } as never))).toEqual(['INVALID_OPTION', expect.stringContaining('"partitonKey"')])
    expect(code(() => syncCosmos(db, 'items', container, { softDelete: { field: 'gone', ttl: 0 } }))).toEqual(['INVALID_OPTION', expect.stringContaining('softDelete.ttl')])
    db.close()
  })

  test("a database from before the mirror's stores: SCHEMA_MISMATCH (at open when declared, at syncCosmos for a keepTs store) until its version is raised", async () => {
    const { container } = await newContainer(port)
    const name = uniqueName('cosmos')
    ;(await openMirror(Date.now, name, 1)).close()
    // As a database upgraded by a version of the library without the mirror would be.
    const raw = await openDB(name, 2, { upgrade: (d) => (d.deleteObjectStore('__idb_ttl_outbox'), d.deleteObjectStore('__idb_ttl_sync')) })
    raw.close()
    await expect(openMirror(Date.now, name, 2)).rejects.toMatchObject({ code: 'SCHEMA_MISMATCH', message: expect.stringContaining('higher version (3)') })
    const legacy = await openTtlDB(name, { version: 2, stores: { items: { keyPath: 'id', keepTs: true } }, purge: { mode: 'off' } })
    expect(() => syncCosmos(legacy, 'items', container)).toThrow(expect.objectContaining({ code: 'SCHEMA_MISMATCH', message: expect.stringContaining('higher version') }))
    legacy.close()
    const raised = await openMirror(Date.now, name, 3)
    expect(() => syncCosmos(raised, 'items', container)).not.toThrow()
    raised.close()
  })

  test("a server item the store refuses (ttl 0) fails no pull: set aside with the store's INVALID_TTL message, the round 'idle'", async () => {
    const { container } = await newContainer(port, 60)
    await container.items.create({ id: 'bad', tenant: 't1', ttl: 0 })
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container)
    expect(await sync.pull()).toBe(0)
    expect(sync.status).toMatchObject({ state: 'idle', rejected: 1 })
    expect(await sync.rejected()).toEqual([expect.objectContaining({ key: 'bad', op: 'pull', status: 0, message: expect.stringContaining('ttl must be') })])
    expect(await db.getAll('items')).toEqual([])
    db.close()
  })
})
