/**
 * SPEC §12b against the in-process Cosmos DB server: edits are edits, each item's own partition
 * key, records the server refuses set aside, conditional conflict decisions, transient failures
 * within `maxWaitMs`, and the server's clock. In Node and in every browser project alike
 * (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

describe('edits are edits', () => {
  test("an edit of a pulled item carrying its server _ts restarts the countdown, and is pushed as the edit", async () => {
    const { container } = await newContainer(port, -1)
    const { resource } = await container.items.create({ id: 'a', tenant: 't1', text: 'old', ttl: 10 })
    const clock = aheadClock()
    const db = await openMirror(clock)
    const sync = syncCosmos(db, 'items', container, { partitionKey: 't1', softDelete: false })
    await sync.pull()
    const pulled = await db.get('items', 'a')
    expect(pulled).toMatchObject({ _ts: resource!._ts })
    clock.advance(8_000)
    await db.put('items', { ...pulled!, text: 'new' })
    const edited = await db.get('items', 'a')
    expect(edited!._ts).toBe(Math.floor(clock() / 1000))
    // Past the pulled copy's countdown, within the edit's.
    clock.advance(5_000)
    expect(await db.get('items', 'a')).toMatchObject({ text: 'new' })
    await sync.push()
    expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 'new', ttl: 10 })
    expect(await outbox(db)).toEqual([])
    db.close()
  })
})
