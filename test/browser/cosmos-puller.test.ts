/**
 * The mirror's timer (SPEC §12, `intervalMs`): one puller per origin, elected by a Web Lock as
 * the purge's leader is, another taking over when it stops, and a round at once when the browser
 * comes back online. In real browsers only: Node has neither Web Locks nor an `online` event.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos, type CosmosSync, type SyncState } from '../../src/cosmos/index.js'
import { uniqueName } from '../helpers.js'
import { aheadClock } from '../cosmos/clock.js'
import { newContainer } from '../cosmos/containers.js'
import { startServer, stopServer } from '../cosmos/harness.js'
import { openMirror } from '../cosmos/support.js'

const POLL = { timeout: 20_000, interval: 50 }
let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

/** The states a sync went through, in order. */
function statesOf(sync: CosmosSync): SyncState[] {
  const states: SyncState[] = []
  sync.onStatus((status) => states.push(status.state))
  return states
}

/** The Web Locks held now whose name is `name`. */
async function holders(name: string): Promise<number> {
  const { held = [] } = await navigator.locks.query()
  return held.filter((lock) => lock.name === name).length
}

test('two connections with intervalMs: one is elected and pulls on its timer; stopped, the other takes over', async () => {
  const { container } = await newContainer(port, 60)
  const name = uniqueName('cosmos-puller')
  const clock = aheadClock()
  const [a, b] = [await openMirror(clock, name), await openMirror(clock, name)]
  const first = syncCosmos(a, 'items', container, { partitionKey: 't1', intervalMs: 20 })
  const firstStates = statesOf(first)
  await expect.poll(() => firstStates.includes('pulling'), POLL).toBe(true)
  const second = syncCosmos(b, 'items', container, { partitionKey: 't1', intervalMs: 20 })
  const secondStates = statesOf(second)
  const lockName = `idb-ttl:cosmos-puller:${name}:items`
  expect(await holders(lockName)).toBe(1)

  await container.items.create({ id: 'by-first', tenant: 't1' })
  await expect.poll(() => b.get('items', 'by-first'), POLL).toMatchObject({ id: 'by-first' })
  expect(secondStates).not.toContain('pulling')

  first.stop()
  await container.items.create({ id: 'by-second', tenant: 't1' })
  await expect.poll(() => secondStates.includes('pulling'), POLL).toBe(true)
  await expect.poll(() => a.get('items', 'by-second'), POLL).toMatchObject({ id: 'by-second' })
  expect(await holders(lockName)).toBe(1)
  second.stop()
  // A lock is let go asynchronously.
  await expect.poll(() => holders(lockName), POLL).toBe(0)
  a.close()
  b.close()
})

test('the browser coming back online starts a round at once, without waiting for the timer', async () => {
  const { container } = await newContainer(port, 60)
  const db = await openMirror(aheadClock())
  // An hour between rounds: only the online event can bring the item in within the test.
  const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', intervalMs: 3_600_000 })
  const states = statesOf(sync)
  // The first tick's pull done (nothing queued: no push round).
  await expect.poll(() => states.at(-1) === 'idle' && states.includes('pulling'), POLL).toBe(true)
  await container.items.create({ id: 'after', tenant: 't1' })
  window.dispatchEvent(new Event('online'))
  await expect.poll(() => db.get('items', 'after'), POLL).toMatchObject({ id: 'after' })
  sync.stop()
  db.close()
})
