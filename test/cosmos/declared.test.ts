/**
 * SPEC §12b "Declared, not attached": a store declared `mirror: true` is queued by every handle
 * from open, whether or not `syncCosmos` was called there; a database that mirrors nothing gets
 * no outbox or checkpoint store; the declaration is checked at open. In Node and in every
 * browser project (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openDB } from 'idb'
import { syncCosmos } from '../../src/cosmos/index.js'
import { openTtlDB } from '../../src/index.js'
import { transactionOf } from '../../src/handle/internal.js'
import { OUTBOX_STORE, SYNC_STORE } from '../../src/layout/sync-stores.js'
import { manualClock, uniqueName } from '../helpers.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

const MIRRORED = { items: { keyPath: 'id', mirror: true } }

describe('a store declared mirror: true', () => {
  test("is queued from open by a handle that never called syncCosmos; another handle's push sends it", async () => {
    const { container } = await newContainer(port, -1)
    const name = uniqueName('declared')
    const clock = aheadClock()
    // A service worker, or a page before the SDK's import resolved: it writes, and never syncs.
    const writer = await openTtlDB(name, { version: 1, stores: MIRRORED, clock, purge: { mode: 'off' } })
    await writer.put('items', { id: 'a', tenant: 't1', text: 'written before any sync' })
    await writer.update('items', 'a', { text: 'edited before any sync' })
    expect(await outbox(writer)).toEqual([expect.objectContaining({ store: 'items', key: 'a', op: 'put' })])
    writer.close()

    const page = await openTtlDB(name, { version: 1, stores: MIRRORED, clock, purge: { mode: 'off' } })
    expect(await syncCosmos(page, 'items', container, { partitionKey: 't1' }).push()).toBe(1)
    const { resource } = await container.item('a', 't1').read()
    expect(resource).toMatchObject({ id: 'a', tenant: 't1', text: 'edited before any sync' })
    expect(await outbox(page)).toEqual([])
    page.close()
  })

  test('a delete by a handle that never synced reaches the server', async () => {
    const { container } = await newContainer(port, -1)
    const name = uniqueName('declared')
    const clock = aheadClock()
    const page = await openTtlDB(name, { version: 1, stores: MIRRORED, clock, purge: { mode: 'off' } })
    const sync = syncCosmos(page, 'items', container, { partitionKey: 't1', softDelete: false })
    await page.put('items', { id: 'a', tenant: 't1' })
    await sync.push()
    expect((await container.item('a', 't1').read()).statusCode).toBe(200)
    const other = await openTtlDB(name, { version: 1, stores: MIRRORED, clock, purge: { mode: 'off' } })
    await other.delete('items', 'a')
    other.close()
    await sync.push()
    expect((await container.item('a', 't1').read()).statusCode).toBe(404)
    page.close()
  })

  test("an id Cosmos DB cannot store is refused at write time, before any sync: nothing written", async () => {
    const db = await openTtlDB(uniqueName('declared'), { version: 1, stores: MIRRORED, purge: { mode: 'off' } })
    await expect(db.put('items', { id: 'a/b' })).rejects.toMatchObject({ code: 'INVALID_VALUE', message: expect.stringContaining('"a/b"') })
    await expect(db.put('items', { id: 7 })).rejects.toMatchObject({ code: 'INVALID_VALUE', message: expect.stringContaining('not a string') })
    expect(await db.count('items')).toBe(0)
    expect(await outbox(db)).toEqual([])
    db.close()
  })

  test("the mirror's own writes keep the server's _ts; the app's edits restart the countdown whatever _ts they carry", async () => {
    const clock = manualClock(Date.UTC(2026, 0, 1))
    const db = await openTtlDB(uniqueName('declared'), { version: 1, stores: MIRRORED, clock, purge: { mode: 'off' } })
    // How the pull writes a server copy (src/cosmos/hook.ts): unobserved, keeping its _ts.
    await transactionOf(db, ['items'], 'readwrite', (tx) => tx.put('items', { id: 'a', _ts: 1_000_000 }), { observed: false })
    const pulled = (await db.get('items', 'a'))!
    expect(pulled._ts).toBe(1_000_000)
    await db.put('items', { ...pulled, text: 'edited' })
    expect((await db.get('items', 'a'))!._ts).toBe(Math.floor(clock() / 1000))
    db.close()
  })
})

describe('the database', () => {
  test('one that mirrors nothing gets no outbox or checkpoint store; a mirrored one gets both', async () => {
    const plain = await openTtlDB(uniqueName('plain'), { version: 1, stores: { sessions: { keyPath: 'id', defaultTtl: 60 } }, purge: { mode: 'off' } })
    expect([...plain.raw.objectStoreNames]).not.toContain(OUTBOX_STORE)
    expect([...plain.raw.objectStoreNames]).not.toContain(SYNC_STORE)
    plain.close()
    const mirrored = await openTtlDB(uniqueName('mirrored'), { version: 1, stores: MIRRORED, purge: { mode: 'off' } })
    expect([...mirrored.raw.objectStoreNames]).toEqual(expect.arrayContaining([OUTBOX_STORE, SYNC_STORE]))
    mirrored.close()
  })

  test('mirror: true added at the same version is SCHEMA_MISMATCH at open, naming the version to raise to', async () => {
    const name = uniqueName('declared')
    ;(await openTtlDB(name, { version: 1, stores: { items: { keyPath: 'id' } }, purge: { mode: 'off' } })).close()
    await expect(openTtlDB(name, { version: 1, stores: MIRRORED, purge: { mode: 'off' } })).rejects.toMatchObject({
      code: 'SCHEMA_MISMATCH',
      message: expect.stringMatching(/__idb_ttl_outbox.*higher version \(2\)/),
    })
    const raised = await openTtlDB(name, { version: 2, stores: MIRRORED, purge: { mode: 'off' } })
    await raised.put('items', { id: 'a' })
    expect(await outbox(raised)).toHaveLength(1)
    raised.close()
  })

  test.each([
    [{ keyPath: 'key', mirror: true }, 'keyPath'],
    [{ keyPath: 'id', autoIncrement: true, mirror: true }, 'autoIncrement'],
    [{ keyPath: 'id', mirror: 'yes' }, 'true or false'],
  ])('a declaration it cannot mirror is INVALID_OPTION at open: %o', async (config, words) => {
    const name = uniqueName('declared')
    await expect(openTtlDB(name, { version: 1, stores: { items: config as never }, purge: { mode: 'off' } })).rejects.toMatchObject({
      code: 'INVALID_OPTION',
      message: expect.stringMatching(new RegExp(`store "items".*${words}`)),
    })
    // Nothing was created.
    const raw = await openDB(name)
    expect([...raw.objectStoreNames]).toEqual([])
    raw.close()
  })
})
