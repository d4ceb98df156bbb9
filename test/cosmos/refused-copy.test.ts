/**
 * Issue #43, 6: a server item whose `ttl` the store refuses (SPEC §4: `0`, a string), which a
 * container with TTL off holds (the server ignores `ttl` there), is set aside by the pull,
 * listed by `sync.rejected()`, and blocks nothing: the rest of the page and every later pull
 * come in. In Node and in every browser project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

describe('a server copy the store refuses', () => {
  test('is set aside (listed by sync.rejected) and every other item, then and later, comes in', async () => {
    const { container } = await newContainer(port)
    await container.items.create({ id: 'zero', tenant: 't1', ttl: 0 })
    await container.items.create({ id: 'a', tenant: 't1' })
    await container.items.create({ id: 'hour', tenant: 't1', ttl: '1h' } as never)
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    expect(await sync.pull()).toBe(1)
    expect((await db.getAllKeys('items')).sort()).toEqual(['a'])
    const rejected = await sync.rejected()
    expect(rejected.map((r) => r.key).sort()).toEqual(['hour', 'zero'])
    expect(rejected.every((r) => r.op === 'pull' && /ttl/.test(r.message))).toBe(true)
    expect(sync.status.rejected).toBe(2)

    await container.items.create({ id: 'b', tenant: 't1' })
    expect(await sync.pull()).toBe(1)
    expect((await db.getAllKeys('items')).sort()).toEqual(['a', 'b'])
    db.close()
  })

  test('leaves the list when a copy the store takes comes in, when the server deletes the item, or when discarded', async () => {
    const { container } = await newContainer(port)
    for (const id of ['fixed', 'gone', 'given-up']) await container.items.create({ id, tenant: 't1', ttl: 0 })
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    await sync.pull()
    expect((await sync.rejected()).map((r) => r.key).sort()).toEqual(['fixed', 'given-up', 'gone'])
    await container.items.upsert({ id: 'fixed', tenant: 't1', ttl: 3600 })
    await container.item('gone', 't1').delete()
    expect(await sync.discard('given-up')).toBe(true)
    await sync.pull()
    expect(await sync.rejected()).toEqual([])
    expect(sync.status.rejected).toBe(0)
    expect(await db.getAllKeys('items')).toEqual(['fixed'])
    db.close()
  })
})
