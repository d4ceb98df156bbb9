/**
 * SPEC §16 with §12: a mirrored database the browser took (deleting it stands in for eviction) is
 * told at open (`onLost`), and its sync pulls everything back by itself, with nothing re-queued:
 * the local edit that was never pushed went with the database. In Node and every browser project.
 */
import { deleteDB } from 'idb'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { openTtlDB, type LostReport } from '../../src/index.js'
import { lastSeen } from '../../src/platform/seen.js'
import { SOON, uniqueName } from '../helpers.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { outbox, STORES } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

test('a mirrored database the browser took is reported at open, and its sync pulls it back whole by itself, pushing nothing', async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 'one' })
  await container.items.create({ id: 'b', tenant: 't1', text: 'two' })
  const name = uniqueName('cosmos-lost')
  const clock = aheadClock()
  const reports: LostReport[] = []
  const open = () => openTtlDB(name, { version: 1, stores: STORES, clock, purge: { mode: 'off' }, onLost: (report) => reports.push(report) })

  const before = await open()
  const first = syncCosmos(before, 'items', container, { partitionKey: 't1' })
  await first.pull()
  // An edit never pushed: it lives only in this database, and goes with it.
  await before.put('items', { ...(await before.get('items', 'a'))!, text: 'edited, never pushed' })
  expect(await outbox(before)).toHaveLength(1)
  first.stop()
  before.close()
  await vi.waitFor(async () => expect((await lastSeen(name, null))?.items).toBe(2), SOON)
  await deleteDB(name)

  const after = await open()
  expect(reports).toEqual([expect.objectContaining({ name, bucket: null, items: 2 })])
  expect(after.lost).toEqual(reports[0])
  const sync = syncCosmos(after, 'items', container, { partitionKey: 't1' })
  // No pull asked for: the sync starts one because the database was lost. Waited for by its
  // status (a pull, then idle), not by a poll with a bound in wall time (a loaded browser took 3.6 s).
  await new Promise<void>((resolve) => {
    let pulling = false
    sync.onStatus((status) => {
      pulling ||= status.state === 'pulling'
      if (pulling && status.state === 'idle') resolve()
    })
  })
  expect(await after.getAll('items')).toHaveLength(2)
  expect(await after.get('items', 'a')).toMatchObject({ text: 'one' })
  expect(await outbox(after)).toEqual([])
  expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 'one' })
  sync.stop()
  after.close()
  await deleteDB(name)
  await container.delete()
})
