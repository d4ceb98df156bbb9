/**
 * SPEC §12b "Scope": an item that leaves the filter on the server leaves the store, whichever
 * way its server copy reaches the device. Node only: items written seconds apart are made by
 * moving the in-process server's clock (`Date.now`) while they are written.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import type { Container } from '@azure/cosmos'
import { syncCosmos } from '../../src/cosmos/index.js'
import { manualClock } from '../helpers.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { refusing } from './refusing.js'
import { openMirror } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

const LOW = { where: 'c.n < @max', parameters: [{ name: '@max', value: 50 }] }

/** Runs `write` with the server's clock `agoMs` in the past. */
async function writtenAgo(agoMs: number, write: () => Promise<unknown>): Promise<void> {
  const at = Date.now() - agoMs
  const spy = vi.spyOn(Date, 'now').mockImplementation(() => at)
  try {
    await write()
  } finally {
    spy.mockRestore()
  }
}

/** A filtered mirror of `c` (n: 10), with a local edit of it queued; meanwhile `c` left the filter on the server, a minute ago, and the device pulled since. */
async function editedWhileItLeft(container: Container, edit: Record<string, unknown> = {}) {
  await writtenAgo(120_000, () => container.items.create({ id: 'c', tenant: 't1', n: 10 }))
  const db = await openMirror(manualClock(Date.now()))
  const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', filter: LOW, onConflict: () => 'server' })
  await sync.pull()
  await db.put('items', { ...(await db.get('items', 'c'))!, n: 20, ...edit })
  if (edit.poison) await sync.push()
  await writtenAgo(60_000, () => container.item('c', 't1').replace({ id: 'c', tenant: 't1', n: 93 }))
  // The device pulls (c is skipped: its edit is queued) past the second c was changed in.
  await container.items.create({ id: 'd', tenant: 't1', n: 5 })
  await sync.pull()
  return { db, sync }
}

/**
 * Found by the devices property (seed 42, "c shows, outside the filter"): the push's conflict went
 * to the server's copy, which the store took as the local item though it no longer matched the
 * filter, and no later pull asked about it (it changed before the checkpoint).
 */
test("a conflict decided for the server's copy, which has left the filter: the item leaves the store", async () => {
  const { container } = await newContainer(port, -1)
  const { db, sync } = await editedWhileItLeft(container)
  expect(await sync.push()).toBe(1)
  expect((await container.item('c', 't1').read()).resource).toMatchObject({ n: 93 })
  expect(await db.getAllKeys('items')).toEqual(['d'])
  await sync.pull()
  expect(await db.getAllKeys('items')).toEqual(['d'])
  sync.stop()
  db.close()
})

test("a write set aside, discarded for the server's copy, which has left the filter: the item leaves the store", async () => {
  const { container } = await newContainer(port, -1)
  const { db, sync } = await editedWhileItLeft(refusing(container, (body) => body.poison === true), { poison: true })
  expect((await sync.rejected()).map((r) => r.key)).toEqual(['c'])
  expect(await sync.discard('c')).toBe(true)
  expect(await db.getAllKeys('items')).toEqual(['d'])
  await sync.pull()
  expect(await db.getAllKeys('items')).toEqual(['d'])
  sync.stop()
  db.close()
})
