// Connection life cycle: step aside for another connection's upgrade, reopen lazily.
import { deleteDB, openDB } from 'idb'
import { expose, wrap } from 'comlink'
import { expect, test } from 'vitest'
import { Connection } from '../../src/connection.js'
import type { PurgeApi } from '../../src/worker/api.js'
import { NO_COURTESY } from '../../src/purge.js'
import { createPurgeApi } from '../../src/worker/purge-api.js'
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

test('a connection that must not create the database fails to open a missing one, and creates nothing', async () => {
  const name = uniqueName()
  const connection = new Connection({ name, stores, clock: Date.now, create: false })
  await expect(connection.native()).rejects.toMatchObject({ name: 'AbortError' })
  const databases = await indexedDB.databases()
  expect(databases.map((d) => d.name)).not.toContain(name)
  await deleteDB(name)
})

test('the purge API works over a MessageChannel, as Comlink carries it to the worker', async () => {
  const clock = manualClock()
  const name = uniqueName()
  const db = await freshDB({ clock, stores }, name)
  await db.putAll('s', [{ id: 1 }, { id: 2 }, { id: 3, ttl: 60 }])
  clock.advance(10_000)
  const connection = new Connection({ name, stores, clock, create: false })
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
