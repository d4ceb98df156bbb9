// Connection life cycle: step aside for another connection's upgrade, reopen lazily.
import { deleteDB, openDB } from 'idb'
import { expose, wrap } from 'comlink'
import { expect, test, vi } from 'vitest'
import { openTtlDB, type PurgeReport } from '../../src/index.js'
import { AsIsConnection } from '../../src/layout/connection.js'
import { ProbedConnection } from '../../src/layout/probed-connection.js'
import type { PurgeApi } from '../../src/background/worker/api.js'
import { NO_COURTESY, purgeSlice, purgeStore, type Courtesy } from '../../src/purge/purge.js'
import { createPurgeApi } from '../../src/background/worker/purge-api.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

test('an upgrade from another connection is not blocked, and the handle reopens afterwards', async () => {
  const clock = manualClock()
  const name = uniqueName()
  const db = await freshDB({ clock, stores }, name)
  await db.put('s', { id: 'a' })
  let blocked = false
  const other = await openDB(name, 2, {
    upgrade: (raw) => void raw.createObjectStore('added'),
    blocked: () => void (blocked = true),
  })
  expect(blocked).toBe(false)
  other.close()
  expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
  expect(db.raw.version).toBe(2)
  await db.put('s', { id: 'b' })
  expect(await db.count('s')).toBe(2)
})

test("a `versionchange` handler the app sets through `raw` does not keep the connection from stepping aside", async () => {
  const name = uniqueName()
  const db = await freshDB({ stores }, name)
  let heard = false
  db.raw.onversionchange = () => void (heard = true)
  let blocked = false
  const other = await openDB(name, 2, {
    upgrade: (raw) => void raw.createObjectStore('added'),
    blocked: () => {
      blocked = true
      db.close()
    },
  })
  other.close()
  expect(heard).toBe(true)
  expect(blocked).toBe(false)
})

test('a connection that must not create the database fails to open a missing one, and creates nothing', async () => {
  const name = uniqueName()
  const connection = new AsIsConnection({ name, stores, clock: Date.now })
  await expect(connection.native()).rejects.toMatchObject({ name: 'AbortError' })
  const databases = await indexedDB.databases()
  // WebKit still lists an aborted creation, at version 0 (pinned in test/browser/engines.test.ts).
  expect(databases.filter((d) => d.version !== 0).map((d) => d.name)).not.toContain(name)
  await deleteDB(name)
})

test("the purge worker's connection probes each open, as it settles, and steps aside while the probe waits; the page entries' connections never probe", async () => {
  const name = uniqueName()
  const db = await freshDB({ stores }, name)
  db.close()
  const open = vi.spyOn(indexedDB, 'open')
  try {
    // The probe's request is made as the open settles: counted when `native()` resolves.
    const plain = new AsIsConnection({ name, stores, clock: Date.now })
    await plain.native()
    expect(open).toHaveBeenCalledTimes(1)
    plain.close()
    open.mockClear()
    let steppedAside = 0
    const probed = new ProbedConnection({ name, stores, clock: Date.now, onStepAside: () => void steppedAside++ })
    const first = await probed.native()
    expect(open).toHaveBeenCalledTimes(2)
    // A probe that opens closes again: the connection stays.
    await vi.waitFor(() => expect(open.mock.results[1]?.value.readyState).toBe('done'))
    expect(await probed.native()).toBe(first)
    probed.close()
    // A probe still pending (it waits behind an upgrade WebKit did not tell the worker of): the connection steps aside for it.
    open.mockClear()
    const waiting = new ProbedConnection({ name, stores, clock: Date.now, onStepAside: () => void steppedAside++ })
    const real = open.getMockImplementation()
    open.mockImplementationOnce(real!).mockImplementationOnce(() => ({}) as IDBOpenDBRequest)
    const held = await waiting.native()
    expect(open).toHaveBeenCalledTimes(2)
    await vi.waitFor(() => expect(steppedAside).toBe(1), { timeout: 5000 })
    const reopened = await waiting.native()
    expect(reopened).not.toBe(held)
    waiting.close()
  } finally {
    open.mockRestore()
  }
  await deleteDB(name)
})

test('the purge API works over a MessageChannel, as Comlink carries it to the worker', async () => {
  const clock = manualClock()
  const name = uniqueName()
  const db = await freshDB({ clock, stores }, name)
  await db.putAll('s', [{ id: 1 }, { id: 2 }, { id: 3, ttl: 60 }])
  clock.advance(10_000)
  const connection = new AsIsConnection({ name, stores, clock })
  const { port1, port2 } = new MessageChannel()
  expose(createPurgeApi({ name, stores, batchSize: 1, sliceMs: 1000 }, () => connection.native(), () => connection.close(), NO_COURTESY), port1)
  const remote = wrap<PurgeApi>(port2)
  const [report] = await remote.slice(clock.now)
  expect(report).toMatchObject({ store: 's', deleted: 2, more: false, nextExpiryMs: (Math.floor(1_700_000_000) + 60) * 1000, defaultTtl: 10 })
  await expect(remote.purgeAll(['missing'], clock.now)).rejects.toMatchObject({ name: 'NotFoundError' })
  clock.advance(60_000)
  expect(await remote.purgeAll(['s'], clock.now)).toBe(1)
  await remote.close()
  port1.close()
  port2.close()
  expect(await db.raw.count('s')).toBe(0)
})

test('after another connection deletes the database, the handle recreates it at the declared version, not at 1', async () => {
  const clock = manualClock()
  const name = uniqueName('deleted')
  const upgrades: [number, number | null][] = []
  const db = await freshDB({ clock, stores, version: 3, upgrade: (_raw, from, to) => void upgrades.push([from, to]) }, name)
  await db.put('s', { id: 'a' })
  await deleteDB(name)
  expect(await db.get('s', 'a')).toBeUndefined()
  await db.put('s', { id: 'b' })
  expect(db.raw.version).toBe(3)
  expect(upgrades).toEqual([[0, 3], [0, 3]])
  // The app opened anew at its version finds the database as it declares it.
  const again = await openTtlDB(name, { version: 3, clock, stores, purge: { mode: 'off' } })
  expect(await again.get('s', 'b')).toMatchObject({ id: 'b' })
  again.close()
})

test('an upgrade elsewhere in the middle of purgeExpired does not stop it', async () => {
  const clock = manualClock()
  const name = uniqueName('upgraded')
  const db = await freshDB({ clock, stores, purge: { mode: 'inline', batchSize: 10, maxIntervalMs: 600_000 } }, name)
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  await db.putAll('s', Array.from({ length: 2000 }, (_, i) => ({ id: i })))
  await db.put('s', { id: 'live', ttl: -1 })
  clock.advance(10_000)
  const purging = db.purgeExpired('s')
  // Two hundred batches: the upgrade comes while they run, and is not blocked by them.
  const other = await openDB(name, 2, { upgrade: (raw) => void raw.createObjectStore('added') })
  other.close()
  // Background slices may take part of the work; together they delete every dead item once.
  expect(await purging).toBeGreaterThan(0)
  await vi.waitFor(() => expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(2000), { timeout: 5000, interval: 10 })
  expect(reports.filter((r) => r.error)).toEqual([])
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})

test.for([
  { name: 'purgeStore', slice: false },
  { name: 'purgeSlice', slice: true },
])('every batch of $name goes through the connection, which reopens after an upgrade between batches', async ({ slice }) => {
  const clock = manualClock()
  const name = uniqueName('upgraded')
  const db = await freshDB({ clock, stores }, name)
  await db.putAll('s', Array.from({ length: 50 }, (_, i) => ({ id: i })))
  await db.put('s', { id: 'live', ttl: -1 })
  clock.advance(10_000)
  const connection = new AsIsConnection({ name, stores, clock })
  let upgraded = false
  const upgradeOnce: Courtesy = {
    batchSize: (n) => n,
    async pause() {
      if (upgraded) return
      upgraded = true
      const other = await openDB(name, 2, { upgrade: (raw) => void raw.createObjectStore('added') })
      other.close()
    },
  }
  const connect = () => connection.native()
  const deleted = slice
    ? (await purgeSlice(connect, ['s'], clock.now, { batchSize: 10, sliceMs: 60_000, courtesy: upgradeOnce }, new Map()))[0].deleted
    : await purgeStore(connect, 's', clock, 10, upgradeOnce)
  connection.close()
  expect(upgraded).toBe(true)
  expect(deleted).toBe(50)
  expect(await db.count('s')).toBe(1) // the handle stepped aside too: this reopens it
  expect(await db.raw.getAllKeys('s')).toEqual(['live'])
})
