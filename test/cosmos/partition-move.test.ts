/**
 * SPEC §12b "Partition keys": an edit of an item's partition key fields, in a mirror that holds
 * several partitions (a whole container; a hierarchical key's first level), moves the item: its
 * old copy is deleted on the condition that it is still the one the edit was made on, and the
 * item is created in its new partition; never two copies of one id. In Node and in every browser
 * project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Container } from '@azure/cosmos'
import { syncCosmos, type Conflict } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer, TENANT_USER } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

/** Every copy of `id` on the server, in any partition (tombstones aside). */
async function copies(container: Container, id: string): Promise<Record<string, unknown>[]> {
  const query = { query: 'SELECT * FROM c WHERE c.id = @id', parameters: [{ name: '@id', value: id }] }
  return (await container.items.query<Record<string, unknown>>(query).fetchAll()).resources.filter((item) => item._idbTtlDeleted !== true)
}

test('in a whole container, an edit of the partition key moves the item: one copy, in the new partition, on every device (the mover too)', async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 'v1' })
  const [here, there] = [await openMirror(aheadClock()), await openMirror(aheadClock())]
  const [mine, theirs] = [syncCosmos(here, 'items', container), syncCosmos(there, 'items', container)]
  await mine.pull()
  await theirs.pull()
  await here.put('items', { ...(await here.get('items', 'a'))!, tenant: 't2', text: 'moved' })
  expect(await mine.push()).toBe(1)
  expect((await copies(container, 'a')).map(({ tenant, text }) => ({ tenant, text }))).toEqual([{ tenant: 't2', text: 'moved' }])
  expect(await outbox(here)).toEqual([])
  // The old copy's tombstone and the new copy, in the same second: neither device loses the item.
  for (const [db, sync] of [[here, mine], [there, theirs]] as const) {
    for (const full of [false, false, true]) {
      await sync.pull({ full })
      expect(await db.getAll('items')).toEqual([expect.objectContaining({ id: 'a', tenant: 't2', text: 'moved' })])
    }
  }
  // A mirror of the old partition alone learns that the item left it.
  const old = await openMirror(aheadClock())
  const t1 = syncCosmos(old, 'items', container, { partitionKey: 't1' })
  await t1.pull()
  expect(await old.getAll('items')).toEqual([])
  for (const sync of [mine, theirs, t1]) sync.stop()
  for (const db of [here, there, old]) db.close()
})

/**
 * The test server keeps one partition per first level of a key (its limit: an id is unique per
 * tenant there), so the duplicate an account makes of a moved item cannot show on it; what the
 * mirror sends can: the old copy deleted in its full partition, the new one created.
 */
test("under a hierarchical key, moving an item to another user of the tenant deletes the old user's copy and creates the new one", async () => {
  const { container } = await newContainer(port, -1, TENANT_USER)
  await container.items.create({ id: 'a', tenant: 't1', user: 'u1', text: 'v1' })
  const db = await openMirror(aheadClock())
  const sent: string[] = []
  const recorded = new Proxy(container, {
    get(target, name) {
      if (name !== 'item') return Reflect.get(target, name) as unknown
      return (id: string, pk: unknown) =>
        new Proxy(target.item(id, pk as never), {
          get(item, method) {
            const value = Reflect.get(item, method) as unknown
            return typeof value === 'function' ? (...args: unknown[]) => (sent.push(`${String(method)} ${id} ${JSON.stringify(pk)}`), value.apply(item, args)) : value
          },
        })
    },
  })
  const sync = syncCosmos(db, 'items', recorded, { partitionKey: 't1', softDelete: false })
  await sync.pull()
  await db.put('items', { ...(await db.get('items', 'a'))!, user: 'u2', text: 'moved' })
  sent.length = 0
  expect(await sync.push()).toBe(1)
  expect(sent).toContain('delete a ["t1","u1"]')
  expect(sent.filter((call) => call.startsWith('replace'))).toEqual([])
  expect((await copies(container, 'a')).map(({ user, text }) => ({ user, text }))).toEqual([{ user: 'u2', text: 'moved' }])
  await sync.pull()
  expect(await db.getAll('items')).toEqual([expect.objectContaining({ id: 'a', user: 'u2', text: 'moved' })])
  sync.stop()
  db.close()
})

test('a move whose old copy changed on the server meanwhile is a conflict over that copy; the decision is written without a second copy', async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 'v1' })
  const db = await openMirror(aheadClock())
  const asked: Conflict[] = []
  const sync = syncCosmos(db, 'items', container, { onConflict: (conflict) => (asked.push(conflict), 'local') })
  await sync.pull()
  await db.put('items', { ...(await db.get('items', 'a'))!, tenant: 't2', text: 'moved' })
  await container.items.upsert({ id: 'a', tenant: 't1', text: 'edited there' })
  await sync.push()
  expect(asked.map((conflict) => conflict.server?.text)).toEqual(['edited there'])
  expect((await copies(container, 'a')).map(({ tenant, text }) => ({ tenant, text }))).toEqual([{ tenant: 't2', text: 'moved' }])
  expect(await db.getAll('items')).toEqual([expect.objectContaining({ id: 'a', tenant: 't2', text: 'moved' })])
  sync.stop()
  db.close()
})

test("a move whose old copy was deleted on the server outright is a conflict with no server copy: 'server' leaves no copy anywhere", async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 'v1' })
  const db = await openMirror(aheadClock())
  const asked: Conflict[] = []
  const sync = syncCosmos(db, 'items', container, { onConflict: (conflict) => (asked.push(conflict), 'server') })
  await sync.pull()
  await db.put('items', { ...(await db.get('items', 'a'))!, tenant: 't2', text: 'moved' })
  await container.item('a', 't1').delete()
  await sync.push()
  expect(asked).toEqual([expect.objectContaining({ key: 'a', server: undefined })])
  expect(await copies(container, 'a')).toEqual([])
  expect(await db.getAll('items')).toEqual([])
  sync.stop()
  db.close()
})

/**
 * Found by the devices property: the moved item's new copy expired under a container TTL the
 * mirror never read, and the server removed it without a tombstone; the old copy's tombstone, in
 * the other partition, has the same id. A full pull compares live ids: the tombstone keeps nothing.
 */
test('a moved item whose new copy the server then removed outright (no tombstone) leaves the store at a full pull, though its old copy’s tombstone has its id', async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 'v1' })
  const db = await openMirror(aheadClock())
  const sync = syncCosmos(db, 'items', container)
  await sync.pull()
  await db.put('items', { ...(await db.get('items', 'a'))!, tenant: 't2', text: 'moved' })
  expect(await sync.push()).toBe(1)
  await sync.pull()
  expect(await db.getAll('items')).toEqual([expect.objectContaining({ id: 'a', tenant: 't2', text: 'moved' })])
  await container.item('a', 't2').delete()
  await sync.pull({ full: true })
  expect(await db.getAll('items')).toEqual([])
  sync.stop()
  db.close()
})
