/**
 * SPEC §12b "One bad record blocks nothing": ids Cosmos DB cannot store, or that no point
 * operation can address, are refused at write time with `TtlError` `INVALID_VALUE`, nothing
 * written, nothing queued (src/rules/cosmos-ids.ts). In Node and in every browser project alike.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

test.each([
  ['', /is empty/],
  ['.', /path segment/],
  ['..', /path segment/],
])('the id %j is refused at write time, by put, add, putAll and in a transaction: nothing written, nothing queued', async (id, why) => {
  const db = await openMirror(aheadClock())
  const refused = { name: 'TtlError', code: 'INVALID_VALUE', message: expect.stringMatching(why) }
  await expect(db.put('items', { id })).rejects.toMatchObject(refused)
  await expect(db.add('items', { id })).rejects.toMatchObject(refused)
  await expect(db.putAll('items', [{ id: 'fine' }, { id }])).rejects.toMatchObject(refused)
  await expect(db.transaction(['items'], 'readwrite', (tx) => tx.put('items', { id }))).rejects.toMatchObject(refused)
  expect(await db.count('items')).toBe(0)
  expect(await outbox(db)).toEqual([])
  db.close()
})

test('a push after a refused empty id sends nothing stray: the server holds only the good write', async () => {
  const { container } = await newContainer(port, -1)
  const db = await openMirror(aheadClock())
  const sync = syncCosmos(db, 'items', container, { partitionKey: 't1' })
  await expect(db.put('items', { id: '', text: 'no id' })).rejects.toMatchObject({ code: 'INVALID_VALUE' })
  await db.put('items', { id: 'a', text: 'an id' })
  expect(await sync.push()).toBe(1)
  expect((await container.items.readAll().fetchAll()).resources.map((item) => item.id)).toEqual(['a'])
  expect(sync.status).toMatchObject({ state: 'idle', pending: 0 })
  sync.stop()
  db.close()
  await container.delete()
})
