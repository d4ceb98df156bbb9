/**
 * SPEC §12b "Scope": a write held across a change of scope (queued, or parked with its partition)
 * keeps what it needs to reach the server: the server copy it was made on (its base). A delete
 * has nothing else to go by; an edit goes with `If-Match` on it. In Node and in every browser
 * project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos, type Conflict, type SyncOptions } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

const kind = (value: string): SyncOptions['filter'] => ({ where: 'c.kind = @kind', parameters: [{ name: '@kind', value }] })

test.each([
  ['a tombstone', {}],
  ['a plain delete', { softDelete: false as const }],
])('a delete queued before a filter switch reaches the server after it (%s)', async (_, deletes) => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'n1', tenant: 't1', kind: 'note' })
  await container.items.create({ id: 't1', tenant: 't1', kind: 'task' })
  const db = await openMirror(aheadClock())
  const notes = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: kind('note'), ...deletes })
  await notes.pull()
  await db.delete('items', 'n1')
  notes.stop()
  const tasks = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: kind('task'), ...deletes })
  await tasks.pull()
  expect(await tasks.push()).toBe(1)
  const { resource } = await container.item('n1', 't1').read()
  expect(resource === undefined || resource._idbTtlDeleted === true, `n1 on the server: ${JSON.stringify(resource)}`).toBe(true)
  expect(await outbox(db)).toEqual([])
  // Back to notes: n1 does not come back.
  tasks.stop()
  const again = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: kind('note'), ...deletes })
  await again.pull()
  expect(await db.getAllKeys('items')).toEqual([])
  again.stop()
  db.close()
})

test('an edit queued before a filter switch goes with If-Match on its base: a server change meanwhile is a conflict, with the server copy', async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'n1', tenant: 't1', kind: 'note', text: 'v1' })
  const db = await openMirror(aheadClock())
  const notes = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: kind('note') })
  await notes.pull()
  await db.put('items', { ...(await db.get('items', 'n1'))!, text: 'edited here' })
  notes.stop()
  await container.items.upsert({ id: 'n1', tenant: 't1', kind: 'note', text: 'edited there' })
  const asked: Conflict[] = []
  const tasks = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: kind('task'), onConflict: (conflict) => (asked.push(conflict), 'local') })
  await tasks.push()
  expect(asked.map((conflict) => [conflict.key, conflict.server?.text])).toEqual([['n1', 'edited there']])
  expect((await container.item('n1', 't1').read()).resource).toMatchObject({ text: 'edited here' })
  tasks.stop()
  db.close()
})

test("an edit parked with its partition comes back with its base: pushed as a replace of the copy it was made on, no conflict when the server's is unchanged", async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 'v1' })
  const db = await openMirror(aheadClock())
  const asked: Conflict[] = []
  const options = { onConflict: (conflict: Conflict) => (asked.push(conflict), 'server' as const) }
  const t1 = syncCosmos(db, 'items', container, { partitionKey: 't1', ...options })
  await t1.pull()
  await db.put('items', { ...(await db.get('items', 'a'))!, text: 'edited before signing out' })
  t1.stop()
  const t2 = syncCosmos(db, 'items', container, { partitionKey: 't2', ...options })
  await t2.pull()
  t2.stop()
  const back = syncCosmos(db, 'items', container, { partitionKey: 't1', ...options })
  expect(await back.push()).toBe(1)
  expect(asked).toEqual([])
  expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 'edited before signing out' })
  back.stop()
  db.close()
})

/**
 * Found by the two-device property: with a filter whose scope holds nothing yet, the checkpoint
 * stays at 0, and a pull from 0 never asked which items left the filter; an edit held across the
 * switch, pushed, that the new filter does not match stayed in the store for good.
 */
test("an edit held across a filter switch that the new filter does not match leaves the store once pushed, though the new filter's scope is empty", async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'n1', tenant: 't1', kind: 'note' })
  const db = await openMirror(aheadClock())
  const notes = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: kind('note') })
  await notes.pull()
  await db.put('items', { ...(await db.get('items', 'n1'))!, text: 'edited' })
  notes.stop()
  const tasks = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: kind('task') })
  await tasks.pull()
  expect(await tasks.push()).toBe(1)
  await tasks.pull()
  expect(await db.getAllKeys('items')).toEqual([])
  tasks.stop()
  db.close()
})
