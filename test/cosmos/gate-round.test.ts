/**
 * A sync started on a store while an earlier sync's round is under way (one user signs out,
 * another signs in, with a round running): the new sync's change of scope gates the store's calls
 * (`Routes.gate`) and waits for the round's Web Lock, while the round reads and sets the store
 * through the handle (its default, the items it pushes, the keys it checks). The round must pass
 * the gate, or neither ever ends.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

test.each([
  ['stopped first', true],
  ['left running', false],
])('a push round under way when a sync of another partition starts (the earlier sync %s) ends, and the new scope lands', async (_, stopFirst) => {
  const { container } = await newContainer(port, -1)
  const db = await openMirror(aheadClock())
  const t1 = syncCosmos(db, 'items', container, { partitionKey: 't1' })
  await t1.pull()
  await db.put('items', { id: 'a', text: 't1 a' })
  const pushed = t1.push()
  if (stopFirst) t1.stop()
  const t2 = syncCosmos(db, 'items', container, { partitionKey: 't2' })
  expect(await pushed).toBe(1)
  expect(await t2.pull()).toBe(0)
  expect(await db.getAll('items')).toEqual([])
  expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 't1 a' })
  t1.stop()
  t2.stop()
  db.close()
}, 8000)
