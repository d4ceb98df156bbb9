/**
 * The network as it is: offline then online (a proxy that refuses connections), server changes
 * made meanwhile, a 429 storm with `x-ms-retry-after-ms`, 5xx, and conflicts by `_etag`. In Node
 * and in every browser project alike (test/cosmos/harness.ts); in a page, the proxy is a Node
 * process away, behind the dev server.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest'
import { OfflineError, syncCosmos, type Conflict, type SyncStatus } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { containerVia, newContainer } from './containers.js'
import { startFaultProxy, startServer, stopServer, type FaultProxy } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
let proxy: FaultProxy
beforeAll(async () => {
  port = await startServer()
  proxy = await startFaultProxy(port)
})
afterEach(() => proxy.reset())
afterAll(async () => {
  await proxy.stop()
  await stopServer(port)
})

/** A container the test writes to directly, and the same one as the mirror reaches it, through the proxy. */
async function setup(defaultTtl = 60, options = {}) {
  const { container, id } = await newContainer(port, defaultTtl)
  const clock = aheadClock()
  const db = await openMirror(clock)
  const sync = syncCosmos(db, 'items', containerVia(proxy.port, id), { partitionKey: 't1', backoffMs: 10, ...options })
  const states: SyncStatus[] = []
  sync.onStatus((s) => states.push(s))
  return { server: container, clock, db, sync, states }
}

describe('partitions', () => {
  test("a mirror of one partition key value queries that partition only: each of a full pull's queries carries its key", async () => {
    const { server, db, sync } = await setup()
    await server.items.create({ id: 'a', tenant: 't1' })
    await proxy.reset()
    expect(await sync.pull({ full: true })).toBe(1)
    // The SDK asks the gateway for a query plan first, without a key: the query itself carries it.
    const queries = (await proxy.log()).passed.filter((request) => request.method === 'POST' && request.url.endsWith('/docs') && !request.queryPlan)
    expect(queries.length).toBeGreaterThanOrEqual(2)
    expect(queries.map((query) => query.partitionKey)).toEqual(queries.map(() => '["t1"]'))
    db.close()
  })
})

describe('push speed', () => {
  test('a long queue goes a hundred records to a request (a bulk request each), with If-Match on each base', async () => {
    const { server, db, sync } = await setup()
    await db.putAll('items', Array.from({ length: 250 }, (_, i) => ({ id: `a${i}`, n: 1 })))
    await proxy.reset()
    expect(await sync.push()).toBe(250)
    const writes = () => proxy.log().then(({ passed }) => passed.filter((request) => request.method === 'POST' || request.method === 'PUT').length)
    expect(await writes()).toBe(3)
    // Edits of pushed items: replaces on the condition of each base; one changed meanwhile is a conflict, settled on its own.
    await server.items.upsert({ id: 'a7', tenant: 't1', n: 'server' })
    await db.putAll('items', Array.from({ length: 250 }, (_, i) => ({ id: `a${i}`, n: 2 })))
    await proxy.reset()
    expect(await sync.push()).toBe(250)
    // Three bulk requests, and for the conflict its own attempt and the decision's write.
    expect(await writes()).toBe(5)
    const items = (await server.items.query('SELECT c.id, c.n FROM c').fetchAll()).resources
    expect(items.filter((item) => item.n === 2)).toHaveLength(250)
    db.close()
  })

  test("a long queue's push counts the outbox as often as a short one's (a count walks the queue: once a batch would be quadratic), its status counting down", async () => {
    const walksOf = async (length: number) => {
      const { db, sync, states } = await setup()
      await db.putAll('items', Array.from({ length }, (_, i) => ({ id: `a${i}`, n: 1 })))
      const count = vi.spyOn(IDBIndex.prototype, 'count')
      states.length = 0
      expect(await sync.push()).toBe(length)
      const walks = count.mock.calls.length
      count.mockRestore()
      db.close()
      return { walks, pending: states.filter((s) => s.state === 'pushing').map((s) => s.pending) }
    }
    const short = await walksOf(100)
    const long = await walksOf(300)
    expect(long.walks).toBe(short.walks)
    expect(long.pending).toEqual([300, 200, 100, 0])
  })
})

describe('offline', () => {
  test('reports offline, keeps the outbox, and catches up both ways once online', async () => {
    const { server, db, sync, states } = await setup()
    await server.items.create({ id: 'before', tenant: 't1' })
    await sync.pull()
    await proxy.offline()
    await db.put('items', { id: 'mine', n: 1 })
    await db.delete('items', 'before')
    await expect(sync.push()).rejects.toBeInstanceOf(OfflineError)
    await expect(sync.pull()).rejects.toBeInstanceOf(OfflineError)
    expect(states.at(-1)).toMatchObject({ state: 'offline', pending: 2 })
    // Reads and writes work from the local store meanwhile.
    expect(await db.getAllKeys('items')).toEqual(['mine'])
    // The server changes while the device is offline.
    await server.items.create({ id: 'theirs', tenant: 't1' })
    await proxy.online()
    expect(await sync.push()).toBe(2)
    await sync.pull()
    expect(states.at(-1)).toMatchObject({ state: 'idle', pending: 0 })
    expect(await db.getAllKeys('items')).toEqual(['mine', 'theirs'])
    const live = (await server.items.query('SELECT * FROM c WHERE NOT IS_DEFINED(c._idbTtlDeleted)').fetchAll()).resources.map((i) => i.id).sort()
    expect(live).toEqual(['mine', 'theirs'])
    db.close()
  })

  test('nothing queued is lost across a reload while offline', async () => {
    const { id, container: server } = await newContainer(port, 60)
    const clock = aheadClock()
    let db = await openMirror(clock)
    const name = db.raw.name
    const sync = syncCosmos(db, 'items', containerVia(proxy.port, id), { partitionKey: 't1' })
    await proxy.offline()
    await db.put('items', { id: 'a' })
    await expect(sync.push()).rejects.toBeInstanceOf(OfflineError)
    // The reload, within the test's page (or process): the connection closes, and a new one with a
    // new client and mirror opens the same database; only what is on disk carries over.
    db.close()
    await proxy.online()
    db = await openMirror(clock, name)
    expect(await outbox(db)).toHaveLength(1)
    await syncCosmos(db, 'items', containerVia(proxy.port, id), { partitionKey: 't1' }).push()
    expect((await server.item('a', 't1').read()).resource).toMatchObject({ id: 'a' })
    db.close()
  })
})

describe('throttling and server errors', () => {
  test("a 429 storm: each retry waits the server's x-ms-retry-after-ms, and the push completes", async () => {
    const { server, db, sync } = await setup()
    await db.put('items', { id: 'a' })
    await proxy.play({ kind: 'status', status: 429, times: 6, retryAfterMs: 60 })
    expect(await sync.push()).toBe(1)
    const { faults, passed } = await proxy.log()
    expect(faults).toHaveLength(6)
    const attempts = [...faults.map((f) => f.at), passed.find((p) => p.method === 'POST')!.at]
    for (let i = 1; i < attempts.length; i++) expect(attempts[i] - attempts[i - 1]).toBeGreaterThanOrEqual(55)
    expect((await server.item('a', 't1').read()).resource).toMatchObject({ id: 'a' })
    db.close()
  })

  test('5xx: backs off and retries; past maxRetries the round fails with the outbox kept', async () => {
    const { db, sync, states } = await setup(60, { maxRetries: 2 })
    await db.put('items', { id: 'a' })
    await proxy.play({ kind: 'status', status: 503, times: 2 })
    expect(await sync.push()).toBe(1)
    await db.put('items', { id: 'b' })
    await proxy.play({ kind: 'status', status: 500, times: 3 })
    await expect(sync.push()).rejects.toMatchObject({ code: 500 })
    expect(states.at(-1)).toMatchObject({ state: 'error', pending: 1 })
    expect(await outbox(db)).toHaveLength(1)
    expect(await sync.push()).toBe(1)
    db.close()
  })
})

describe('the timer', () => {
  test("a tick whose pull fails still pushes the tick's writes", async () => {
    const { id, container: server } = await newContainer(port, 60)
    const db = await openMirror(aheadClock())
    // The pull's first request fails for good (no retries); the push's go through.
    await proxy.play({ kind: 'status', status: 500, times: 1 })
    const sync = syncCosmos(db, 'items', containerVia(proxy.port, id), { partitionKey: 't1', maxRetries: 0, intervalMs: 3_600_000 })
    const states: string[] = []
    sync.onStatus((s) => states.push(s.state))
    // Written while the tick's pull is on its way.
    await db.put('items', { id: 'a' })
    await expect.poll(async () => (await server.item('a', 't1').read()).statusCode, { timeout: 3000 }).toBe(200)
    // The server holds the item before the round that pushed it has told its last statuses.
    await expect.poll(() => states, { timeout: 3000 }).toEqual(['idle', 'pulling', 'error', 'pushing', 'pushing', 'idle'])
    sync.stop()
    db.close()
  })
})

describe('transient failures', () => {
  test('408, 410, 449 and 503 are retried', async () => {
    const { server, db, sync } = await setup(60, { maxRetries: 3 })
    for (const status of [408, 410, 449, 503]) {
      await db.put('items', { id: `s${status}` })
      await proxy.play({ kind: 'status', status, times: 2 })
      expect(await sync.push(), String(status)).toBe(1)
      expect((await server.item(`s${status}`, 't1').read()).resource, String(status)).toMatchObject({ id: `s${status}` })
    }
    db.close()
  })

  test("a round waits at most maxWaitMs in all: then 'error', the outbox kept, the lock released", async () => {
    for (const fault of [{ status: 429, retryAfterMs: 100 }, { status: 503 }]) {
      const { db, sync, states } = await setup(60, { maxWaitMs: 300, maxRetries: 20, backoffMs: 100 })
      await db.put('items', { id: 'a' })
      await proxy.play({ kind: 'status', times: 50, ...fault })
      const started = performance.now()
      await expect(sync.push()).rejects.toMatchObject({ code: fault.status })
      expect(performance.now() - started, `${fault.status}: the round's waits`).toBeLessThan(1500)
      expect(states.at(-1)).toMatchObject({ state: 'error', pending: 1 })
      expect(await outbox(db)).toHaveLength(1)
      // The next round starts afresh: the lock was released.
      await proxy.reset()
      expect(await sync.push()).toBe(1)
      db.close()
    }
  })

  test('onStatus hears a status only when something in it changed', async () => {
    const { db, sync, states } = await setup()
    await sync.pull()
    await sync.pull()
    await db.put('items', { id: 'a' })
    await sync.push()
    for (let i = 1; i < states.length; i++) expect(states[i], `status ${i}`).not.toEqual(states[i - 1])
    expect(states.map((s) => s.state)).toEqual(['idle', 'pulling', 'idle', 'pulling', 'idle', 'pushing', 'pushing', 'idle'])
    db.close()
  })
})

describe('conflicts', () => {
  test('last writer wins on _ts: a later local write overwrites the server, an earlier one gives way', async () => {
    const { server, clock, db, sync } = await setup()
    await server.items.create({ id: 'a', tenant: 't1', v: 'server 1' })
    await server.items.create({ id: 'b', tenant: 't1', v: 'server 1' })
    await sync.pull()
    // Both change on the server after the pull...
    await server.items.upsert({ id: 'a', tenant: 't1', v: 'server 2' })
    await server.items.upsert({ id: 'b', tenant: 't1', v: 'server 2' })
    const serverTs = (await server.item('b', 't1').read()).resource._ts
    // ... and locally: a from a write two seconds after the server's, b from one before it.
    clock.advance(2000)
    await db.put('items', { id: 'a', v: 'local' })
    await db.put('items', { id: 'b', v: 'local' })
    // The clock cannot go back: b's record is dated a second before the server's write by hand.
    const tx = db.raw.transaction('__idb_ttl_outbox' as never, 'readwrite')
    for await (const cursor of tx.store) {
      const record = cursor.value as { key: string; at: number }
      if (record.key === 'b') await cursor.update({ ...record, at: (serverTs - 1) * 1000 } as never)
    }
    await tx.done
    await sync.push()
    expect((await server.item('a', 't1').read()).resource).toMatchObject({ v: 'local' })
    expect((await server.item('b', 't1').read()).resource).toMatchObject({ v: 'server 2' })
    expect(await db.get('items', 'a')).toMatchObject({ v: 'local' })
    expect(await db.get('items', 'b')).toMatchObject({ v: 'server 2' })
    expect(await outbox(db)).toEqual([])
    db.close()
  })

  test('onConflict decides: a merge is pushed and becomes the local item', async () => {
    const seen: Conflict[] = []
    const { server, db, sync } = await setup(60, {
      onConflict: (c: Conflict) => (seen.push(c), { ...c.server!, tags: [...(c.server!.tags as string[]), ...(c.local!.tags as string[])] }),
    })
    await server.items.create({ id: 'a', tenant: 't1', tags: ['x'] })
    await sync.pull()
    await server.items.upsert({ id: 'a', tenant: 't1', tags: ['x', 'server'] })
    await db.put('items', { id: 'a', tags: ['x', 'local'] })
    await sync.push()
    expect(seen).toEqual([expect.objectContaining({ key: 'a', local: expect.objectContaining({ tags: ['x', 'local'] }), server: expect.objectContaining({ tags: ['x', 'server'] }) })])
    const merged = (await server.item('a', 't1').read()).resource
    expect(merged.tags).toEqual(['x', 'server', 'x', 'local'])
    expect(await db.get('items', 'a')).toMatchObject({ tags: merged.tags, _etag: merged._etag, _ts: merged._ts })
    db.close()
  })

  test('a pull leaves an item with a queued local write alone; the push settles it', async () => {
    const { server, db, sync } = await setup(60, { onConflict: () => 'local' })
    await server.items.create({ id: 'a', tenant: 't1', v: 1 })
    await sync.pull()
    await db.put('items', { id: 'a', v: 'local' })
    await server.items.upsert({ id: 'a', tenant: 't1', v: 'server' })
    await sync.pull()
    expect(await db.get('items', 'a')).toMatchObject({ v: 'local' })
    await sync.push()
    expect((await server.item('a', 't1').read()).resource).toMatchObject({ v: 'local' })
    db.close()
  })
})

describe('an answer lost on the way back', () => {
  test('a write the server made but whose answer was lost is not a conflict when sent again: the app is not asked, the item is in step', async () => {
    const onConflict = vi.fn(() => 'server' as const)
    const { server, db, sync } = await setup(60, { onConflict, maxRetries: 2 })
    await db.put('items', { id: 'a', text: 'one' })
    await sync.push()
    const first = (await server.item('a', 't1').read()).resource!
    // An edit whose replace lands, then a create never seen before: both answers lost once.
    await db.put('items', { ...(await db.get('items', 'a'))!, text: 'two' })
    await proxy.play({ kind: 'lostAnswer', status: 503, times: 1 })
    expect(await sync.push()).toBe(1)
    await db.put('items', { id: 'b', text: 'new' })
    await proxy.play({ kind: 'lostAnswer', status: 503, times: 1 })
    expect(await sync.push()).toBe(1)
    expect(onConflict).not.toHaveBeenCalled()
    const [a, b] = [(await server.item('a', 't1').read()).resource!, (await server.item('b', 't1').read()).resource!]
    expect(a).toMatchObject({ text: 'two' })
    expect(a._etag).not.toBe(first._etag)
    expect(b).toMatchObject({ text: 'new' })
    // In step: the local copies carry the server's _etag, and nothing is queued.
    expect(await db.get('items', 'a')).toMatchObject({ text: 'two', _etag: a._etag })
    expect(await db.get('items', 'b')).toMatchObject({ text: 'new', _etag: b._etag })
    expect(sync.status.pending).toBe(0)
    db.close()
  })
})
