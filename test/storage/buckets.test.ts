// SPEC §16: the Storage Bucket a database lives in (Chromium's `navigator.storageBuckets`; the
// default bucket elsewhere: Firefox, WebKit, Node's fake-indexeddb), what `db.storage()` and
// `requestPersistence()` report, and the databases the browser took, told at open (`onLost`).
// Deleting a bucket or a database stands in for the browser's eviction.
import { deleteDB, openDB } from 'idb'
import { afterEach, expect, test, vi } from 'vitest'
import * as core from '../../src/core.js'
import { deleteTtlDB, openTtlDB, requestPersistence, type LostReport, type OpenTtlDBOptions, type TtlDB } from '../../src/index.js'
import { createStore, get, set } from '../../src/keyval.js'
import { lastSeen } from '../../src/platform/seen.js'
import { manualClock, SOON, uniqueName } from '../helpers.js'
import { databaseExists, expectTtlError } from '../semantics/support.js'

interface Buckets {
  open(name: string, options?: object): Promise<{ indexedDB: IDBFactory; expires(): Promise<number | null> }>
  delete(name: string): Promise<void>
  keys(): Promise<string[]>
}
/** `navigator.storageBuckets` where the engine has it (Chromium), else `undefined`. */
const buckets = (globalThis.navigator as { storageBuckets?: Buckets } | undefined)?.storageBuckets

const stores = { s: { keyPath: 'id', defaultTtl: 60 } }
const handles: TtlDB[] = []
const names: string[] = []
const bucketNames: string[] = []

afterEach(async () => {
  for (const db of handles.splice(0)) db.close()
  await Promise.all(names.splice(0).map((name) => deleteDB(name)))
  await Promise.all(bucketNames.splice(0).map((name) => buckets?.delete(name)))
})

/** A bucket name no other test uses (bucket names are lowercase). */
function bucketName(): string {
  const name = uniqueName('b').toLowerCase().slice(0, 60)
  bucketNames.push(name)
  return name
}

async function open(name: string, options: Partial<OpenTtlDBOptions> = {}): Promise<TtlDB> {
  const db = await openTtlDB(name, { version: 1, stores, purge: { mode: 'off' }, ...options })
  handles.push(db)
  names.push(name)
  return db
}

/** The names of the databases in `factory`, version 0 (an aborted creation in WebKit) aside. */
async function listed(factory: IDBFactory): Promise<string[]> {
  return (await factory.databases()).filter((info) => info.version !== 0).map((info) => info.name!)
}

test('a malformed bucket option is refused by name before the database is touched', async () => {
  const name = uniqueName('bad-bucket')
  const cases: unknown[] = ['cache', { name: 'Cache' }, { name: '-x' }, { name: 'a'.repeat(65) }, { name: 'x', persisted: 'yes' }, { name: 'x', durability: 'fast' }, { name: 'x', quota: -1 }, { name: 'x', expires: 'soon' }, { name: 'x', expires: 1, expiresAfterItems: true }, { name: 'x', persist: true }]
  for (const bucket of cases) {
    await expectTtlError(openTtlDB(name, { version: 1, stores, bucket: bucket as never }), 'INVALID_OPTION')
  }
  await expect(openTtlDB(name, { version: 1, stores, bucket: { name: 'x', persist: true } as never })).rejects.toThrow(/bucket: unknown option "persist"; did you mean persisted\?/)
  await expect(openTtlDB(name, { version: 1, stores, bucket: { name: 'x', quota: 0 } })).rejects.toThrow(/bucket "x": quota must be a positive whole number of bytes/)
  expect(await databaseExists(name)).toBe(false)
  if (buckets) expect(await buckets.keys()).not.toContain('x')
})

test('the database lives in its Storage Bucket where the platform has them, in the default bucket elsewhere, and storage() says which', async () => {
  const name = uniqueName('in-bucket')
  const bucket = bucketName()
  const db = await open(name, { bucket: { name: bucket, durability: 'relaxed' } })
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }])
  const status = await db.storage()
  if (buckets) {
    const inBucket = (await buckets.open(bucket)).indexedDB
    expect(await listed(inBucket)).toEqual([name])
    expect(await listed(indexedDB)).not.toContain(name)
    const raw = await openDB(name, undefined, {})
    raw.close()
    expect(status).toMatchObject({ bucket, persisted: false, expires: null, missing: [] })
    expect(status.usage).toBeGreaterThan(0)
    expect(status.quota).toBeGreaterThan(0)
  } else {
    expect(await countIn(indexedDB, name)).toBe(2)
    expect(status).toMatchObject({ bucket: null, expires: null })
    expect(status.missing).toContain('storageBuckets')
  }
  // A database opened without a bucket is in the default one, and says so with nothing missing but what the platform lacks.
  const plain = await open(uniqueName('default'))
  const plainStatus = await plain.storage()
  expect(plainStatus.bucket).toBeNull()
  expect(plainStatus.missing).not.toContain('storageBuckets')
})

/** How many items store `s` of database `name` holds in `factory`. */
async function countIn(factory: IDBFactory, name: string): Promise<number> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const request = factory.open(name)
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
  try {
    return await new Promise((resolve, reject) => {
      const request = db.transaction('s').objectStore('s').count()
      request.onsuccess = () => resolve(request.result)
      request.onerror = () => reject(request.error)
    })
  } finally {
    db.close()
  }
}

test('idb-ttl/core and a full handle open the same bucket; deleteTtlDB deletes from it', async () => {
  const name = uniqueName('core-bucket')
  const bucket = bucketName()
  const full = await open(name, { bucket: { name: bucket } })
  await full.put('s', { id: 'a' })
  const coreDB = await core.openTtlDB(name, { version: 1, stores, purge: { mode: 'off' }, bucket: { name: bucket } })
  expect(await coreDB.get('s', 'a')).toMatchObject({ id: 'a' })
  expect((await coreDB.storage()).bucket).toBe(buckets ? bucket : null)
  coreDB.close()
  full.close()
  await deleteTtlDB(name, { bucket })
  expect(await listed(buckets ? (await buckets.open(bucket)).indexedDB : indexedDB)).not.toContain(name)
})

test('idb-ttl/core refuses onLost and bucket.expiresAfterItems, which only idb-ttl keeps up', async () => {
  const name = uniqueName('core-lost')
  await expectTtlError(core.openTtlDB(name, { version: 1, stores, onLost: () => {} } as never), 'UNSUPPORTED')
  await expectTtlError(core.openTtlDB(name, { version: 1, stores, bucket: { name: 'x', expiresAfterItems: true } }), 'UNSUPPORTED')
  await expectTtlError(openTtlDB(name, { version: 1, stores, onLost: 'tell me' as never }), 'INVALID_OPTION')
  expect(await databaseExists(name)).toBe(false)
})

// Firefox asks the user, and its promise waits for an answer no headless test gives.
const prompts = globalThis.navigator?.userAgent?.includes('Firefox')

test.skipIf(prompts)('requestPersistence reports the answer, and what this global can ask, without throwing', async () => {
  const answer = await requestPersistence()
  expect(typeof answer.persisted).toBe('boolean')
  expect(answer.supported).toBe(typeof globalThis.navigator?.storage?.persist === 'function')
})

test('a database deleted since it was last seen is reported at open: which, when last seen, how many items', async () => {
  const clock = manualClock()
  const name = uniqueName('lost')
  const reports: LostReport[] = []
  const first = await open(name, { clock, onLost: (report) => reports.push(report) })
  expect(first.lost).toBeUndefined()
  await first.putAll('s', [{ id: 'a' }, { id: 'b' }, { id: 'c' }])
  clock.advance(5_000)
  const seenAt = clock.now
  first.close()
  // The registry is written at close, after the handle's count.
  await vi.waitFor(async () => expect(await lastSeen(name, null)).toEqual({ lastSeen: seenAt, items: 3 }), SOON)
  await deleteDB(name)
  clock.advance(60_000)
  const second = await open(name, { clock, onLost: (report) => reports.push(report) })
  const report = { name, bucket: null, lastSeen: seenAt, items: 3 }
  expect(reports).toEqual([report])
  expect(second.lost).toEqual(report)
  // The open recorded it afresh: the next open reports nothing.
  second.close()
  await vi.waitFor(async () => expect(await lastSeen(name, null)).toEqual({ lastSeen: clock.now, items: 0 }), SOON)
  const third = await open(name, { clock, onLost: (r) => reports.push(r) })
  expect(third.lost).toBeUndefined()
  expect(reports).toHaveLength(1)
})

test('no loss is reported for a database the app emptied or deleted with deleteTtlDB, nor for a new one', async () => {
  const name = uniqueName('not-lost')
  const reports: LostReport[] = []
  const onLost = (report: LostReport) => reports.push(report)
  const first = await open(name, { onLost })
  await first.putAll('s', [{ id: 'a' }, { id: 'b' }])
  first.close()
  await vi.waitFor(async () => expect((await lastSeen(name, null))?.items).toBe(2), SOON)
  const emptied = await open(name, { onLost })
  await emptied.clear('s')
  emptied.close()
  await deleteTtlDB(name)
  expect(await lastSeen(name, null)).toBeUndefined()
  const again = await open(name, { onLost })
  expect(again.lost).toBeUndefined()
  expect(reports).toEqual([])
})

test.runIf(buckets)('Chromium: an evicted bucket (deleted) is reported at the next open, from the registry in a bucket of its own', async () => {
  const clock = manualClock()
  const name = uniqueName('evicted')
  const bucket = bucketName()
  const first = await open(name, { clock, bucket: { name: bucket }, onLost: () => {} })
  await first.putAll('s', [{ id: 'a' }, { id: 'b' }])
  first.close()
  await vi.waitFor(async () => expect(await lastSeen(name, bucket)).toEqual({ lastSeen: clock.now, items: 2 }), SOON)
  expect(await buckets!.keys()).toContain('idb-ttl-seen')
  await buckets!.delete(bucket)
  const reports: LostReport[] = []
  const second = await open(name, { clock, bucket: { name: bucket }, onLost: (report) => reports.push(report) })
  expect(reports).toEqual([{ name, bucket, lastSeen: clock.now, items: 2 }])
  expect(second.lost).toEqual(reports[0])
  expect(await second.count('s')).toBe(0)
})

test.runIf(buckets)('Chromium: bucket.expiresAfterItems keeps the bucket until its latest item is dead, set at close, not per write', async () => {
  const clock = manualClock()
  const name = uniqueName('expires')
  const bucket = bucketName()
  const db = await open(name, { clock: () => Date.now(), bucket: { name: bucket, expiresAfterItems: true } })
  const handle = await buckets!.open(bucket)
  expect(await handle.expires()).toBeNull()
  const now = Date.now()
  await db.putAll('s', [{ id: 'inherits' }, { id: 'own', ttl: 600 }, { id: 'short', ttl: 5 }])
  expect(await handle.expires()).toBeNull()
  db.close()
  // The item with its own 600 s lives longest; `_ts` is whole seconds.
  await vi.waitFor(async () => expect(await handle.expires()).not.toBeNull(), SOON)
  const expires = (await handle.expires())!
  expect(expires).toBeGreaterThanOrEqual(Math.floor(now / 1000) * 1000 + 600_000)
  expect(expires).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) * 1000 + 600_000)
  void clock
})

test.runIf(buckets)('Chromium: idb-ttl/keyval createStore({ bucket }) keeps its entries in that bucket', async () => {
  const bucket = bucketName()
  const dbName = uniqueName('kv')
  names.push(dbName)
  const store = createStore(dbName, 'kv', { bucket })
  try {
    await set('k', 'v', store)
    expect(await get('k', store)).toBe('v')
    expect(await listed((await buckets!.open(bucket)).indexedDB)).toContain(dbName)
    expect(await listed(indexedDB)).not.toContain(dbName)
  } finally {
    // The store's connection stays open until closed: the cleanup's deletion would wait for it.
    await store('readonly', (s) => s.transaction.db.close())
  }
})

test.skipIf(buckets)('without Storage Buckets, idb-ttl/keyval createStore({ bucket }) keeps its entries in the default bucket', async () => {
  const dbName = uniqueName('kv')
  names.push(dbName)
  const store = createStore(dbName, 'kv', { bucket: 'cache' })
  try {
    await set('k', 'v', store)
    expect(await get('k', store)).toBe('v')
    expect(await listed(indexedDB)).toContain(dbName)
  } finally {
    await store('readonly', (s) => s.transaction.db.close())
  }
})

test("the registry learns a handle's item count once its writes have rested, without waiting for close", async () => {
  const name = uniqueName('rested')
  const db = await open(name, { onLost: () => {} })
  await vi.waitFor(async () => expect(await lastSeen(name, null)).toMatchObject({ items: 0 }), SOON)
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }, { id: 'c' }])
  await db.put('s', { id: 'd' })
  // One run, REST_MS (2 s) after the last of the writes.
  await vi.waitFor(async () => expect(await lastSeen(name, null)).toMatchObject({ items: 4 }), { timeout: 8_000, interval: 50 })
})
