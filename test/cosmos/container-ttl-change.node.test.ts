/**
 * SPEC §12b "The container's TTL": shortened, lengthened, turned on or off on the server, the
 * next pull makes the live view the container's items with TTL applied, whatever the store
 * purged under the old setting. Node only: an item written long ago is made by moving the
 * in-process server's clock (`Date.now`) while it is created (`createAt`).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { PAGE } from '../../src/cosmos/pull.js'
import { manualClock } from '../helpers.js'
import { createAt, keepItemsOnReplace, setContainerTtl } from './container-ttl.js'
import { containerVia, newContainer } from './containers.js'
import { startFaultProxy, startServer, stopServer } from './harness.js'
import { openMirror } from './support.js'

let port: number
beforeAll(async () => {
  keepItemsOnReplace()
  port = await startServer()
})
afterAll(() => stopServer(port))

const ids = (items: { id: unknown }[]) => items.map((item) => item.id).sort()

describe("the container's TTL changes", () => {
  test.each([
    ['lengthened', 86_400],
    ['on with no default', -1],
    ['turned off', null],
  ] as const)('%s: an item the store purged under the old, shorter TTL comes back at the next pull; shortened again, it goes', async (_, longer) => {
    const { container } = await newContainer(port, 60)
    const realNow = Date.now
    const hourAgo = realNow() - 3_600_000
    await createAt(container, { id: 'old', tenant: 't1' }, hourAgo)
    await container.items.create({ id: 'fresh', tenant: 't1' })
    const db = await openMirror(manualClock(realNow()))
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
    // Under 60 s, the hour-old item is dead on the server as here: the store purges it.
    await sync.pull()
    expect(ids(await db.getAll('items'))).toEqual(['fresh'])
    expect(await db.purgeExpired('items')).toBe(1)

    await setContainerTtl(container, longer)
    await sync.pull()
    expect(await db.getDefaultTtl('items')).toBe(longer)
    expect(ids(await db.getAll('items'))).toEqual(['fresh', 'old'])

    await setContainerTtl(container, 60)
    await sync.pull()
    expect(ids(await db.getAll('items'))).toEqual(['fresh'])
    db.close()
  })
})

/**
 * Found by the devices property (a whole-container mirror that did not pull while the container's
 * TTL was short): the TTL it reads at each round is the same, but an item expired, and the server
 * removed it (no tombstone), under the TTL between. A pull soon after the last one, with soft
 * deletes, neither counts nor lists ids: only the container's new definition tells.
 */
test("a TTL the mirror never saw (-1 → 5 → -1 between two pulls): the item the server removed on expiry under it leaves the store at the next pull", async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'expires', tenant: 't1' })
  await container.items.create({ id: 'keeps', tenant: 't1', ttl: -1 })
  const db = await openMirror(manualClock(Date.now()))
  const sync = syncCosmos(db, 'items', container)
  await sync.pull()
  expect(ids(await db.getAll('items'))).toEqual(['expires', 'keeps'])

  await setContainerTtl(container, 5)
  // Cosmos DB removes the item once 5 s passed since its last write (the test server never does).
  await container.item('expires', 't1').delete()
  await setContainerTtl(container, -1)
  await sync.pull()
  expect(await db.getDefaultTtl('items')).toBe(-1)
  expect(ids(await db.getAll('items'))).toEqual(['keeps'])
  db.close()
})

describe("a re-read after the container's TTL changed", () => {
  test('interrupted (a page after the first fails), it goes on at the next pull until it completed: every purged copy comes back', async () => {
    const proxy = await startFaultProxy(port)
    try {
      const { container, id } = await newContainer(port, 60)
      // Items of an hour ago, in seconds of their own: more than a page of them (PAGE), in _ts order.
      const count = PAGE + 50
      const realNow = Date.now
      const hourAgo = realNow() - 3_600_000
      await Promise.all(Array.from({ length: count }, (_, i) => createAt(container, { id: `old${String(i).padStart(3, '0')}`, tenant: 't1' }, hourAgo + i * 1000)))
      const db = await openMirror(manualClock(realNow()))
      const sync = syncCosmos(db, 'items', containerVia(proxy.port, id), { partitionKey: 't1', maxRetries: 0 })
      await sync.pull()
      expect(await db.getAll('items')).toEqual([])
      expect(await db.purgeExpired('items')).toBe(count)

      await setContainerTtl(container, 86_400)
      // The re-read's first page comes, the second fails (no retries).
      await proxy.play({ kind: 'midPull', after: 1, status: 503 })
      await expect(sync.pull()).rejects.toMatchObject({ code: 503 })
      expect((await db.getAllKeys('items')).length).toBe(PAGE)
      await proxy.reset()
      await sync.pull()
      expect((await db.getAllKeys('items')).length).toBe(count)
      db.close()
    } finally {
      await proxy.stop()
    }
    // 250 items created, pulled through a proxy and purged: 2.8 s alone, past 5 s on a loaded machine.
  }, 20_000)
})

/**
 * The switch of a filter read the store's items through the live view: an item expired locally
 * (and removed by the server on expiry) kept its record, which the container's TTL, lengthened
 * before the new scope's first pull, brought back to life: an item the server no longer has.
 */
test("a filter switched after an item expired: a longer container TTL does not bring the item back", async () => {
  const { container } = await newContainer(port, 5)
  await container.items.create({ id: 'n1', tenant: 't1', kind: 'note' })
  const clock = manualClock(Date.now())
  const db = await openMirror(clock)
  const notes = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: { where: 'c.kind = @kind', parameters: [{ name: '@kind', value: 'note' }] } })
  await notes.pull()
  expect(ids(await db.getAll('items'))).toEqual(['n1'])
  clock.advance(10_000)
  expect(await db.getAll('items')).toEqual([])
  notes.stop()
  // Cosmos DB removes the item on expiry (the test server never does); then the TTL is lengthened.
  await container.item('n1', 't1').delete()
  const all = syncCosmos(db, 'items', container, { partitionKey: 't1' })
  await setContainerTtl(container, -1)
  await all.pull()
  expect(await db.getDefaultTtl('items')).toBe(-1)
  expect(await db.getAll('items')).toEqual([])
  all.stop()
  db.close()
})
