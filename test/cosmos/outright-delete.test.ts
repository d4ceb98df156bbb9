/**
 * SPEC §12 / §12b "Conflicts": an item edited offline and meanwhile deleted on the server
 * outright (no tombstone: a backend, the portal, a `softDelete: false` client) is a conflict like
 * any other: `onConflict` decides it, with `server` undefined (types.ts `Conflict.server`). In
 * Node and in every browser project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos, type Conflict, type Resolution } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

/** An item pulled, edited locally, and deleted on the server outright before the push. */
async function editedThenDeleted(decide?: (conflict: Conflict) => Resolution) {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 'server' })
  const db = await openMirror(aheadClock())
  const asked: Conflict[] = []
  const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', ...(decide && { onConflict: (conflict: Conflict) => (asked.push(conflict), decide(conflict)) }) })
  await sync.pull()
  await db.put('items', { ...(await db.get('items', 'a'))!, text: 'edited offline' })
  await container.item('a', 't1').delete()
  return { container, db, sync, asked }
}

test("onConflict is asked, with no server copy; 'server' keeps the delete: the item is gone on the server and here", async () => {
  const { container, db, sync, asked } = await editedThenDeleted(() => 'server')
  await sync.push()
  expect(asked).toEqual([expect.objectContaining({ key: 'a', server: undefined, local: expect.objectContaining({ text: 'edited offline' }) })])
  expect((await container.item('a', 't1').read()).statusCode).toBe(404)
  expect(await db.get('items', 'a')).toBeUndefined()
  expect(await outbox(db)).toEqual([])
  expect(sync.status).toMatchObject({ state: 'idle', pending: 0 })
  sync.stop()
  db.close()
})

test("'local' (and the default, last writer wins) brings the edit back to the server", async () => {
  for (const decide of [() => 'local' as const, undefined]) {
    const { container, db, sync } = await editedThenDeleted(decide)
    await sync.push()
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 'edited offline' })
    expect(await db.get('items', 'a')).toMatchObject({ text: 'edited offline', _etag: expect.any(String) })
    sync.stop()
    db.close()
  }
})

test('a merge decided for a deleted item is created as decided', async () => {
  const { container, db, sync, asked } = await editedThenDeleted((conflict) => ({ ...conflict.local!, text: 'merged' }))
  await sync.push()
  expect(asked).toHaveLength(1)
  expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 'merged' })
  expect(await db.get('items', 'a')).toMatchObject({ text: 'merged' })
  sync.stop()
  db.close()
})
