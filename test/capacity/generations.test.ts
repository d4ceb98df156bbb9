// Stores with evictOnQuota keep their values in generation databases (src/generations.ts, README
// "Capacity and quota"): what their rows must hold, what a reference is, and the one invariant
// that matters: no committed row ever refers to a deleted generation.
import { afterEach, expect, test, vi } from 'vitest'
import { deleteTtlDB, openTtlDB } from '../../src/index.js'
import { dropUnreferenced } from '../../src/generations/stash.js'
import { IN_FIREFOX, uniqueName } from '../helpers.js'

// Firefox keeps these stores' values in their rows (src/generations.ts): nothing to test there.

afterEach(() => {
  vi.restoreAllMocks()
})

const open = (name: string) => new Promise<IDBDatabase>((resolve, reject) => {
  const request = indexedDB.open(name)
  request.onsuccess = () => resolve(request.result)
  request.onerror = () => reject(request.error)
})

test('in a store without evictOnQuota, a field shaped like a reference to a generation is just a field', async () => {
  const name = uniqueName('gen-field')
  const db = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores: { p: { keyPath: 'id', defaultTtl: 3600 } } })
  const items = [{ id: 1, $gen: { g: 0, w: 'mine' } }, { id: 2, _g: { g: 0, w: 'mine' } }]
  await db.putAll('p', items as never)
  expect(await db.get('p', 1)).toMatchObject(items[0])
  expect(await db.getAll('p')).toMatchObject(items)
  db.close()
})

test.each(['$gen', '$ttl', '$ts'])('an index the app names %s (the library\'s own) is refused at open with INVALID_OPTION naming the store; nothing is created', async (own) => {
  // A user index named $gen made the library take the store for one keeping its values in
  // generations: a purge then deleted the generation holding live values (get undefined, count 1).
  const name = uniqueName('gen-own-index')
  const stores = { plain: { keyPath: 'id', defaultTtl: 10, indexes: { [own]: { keyPath: 'g' } } } }
  const error = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores }).catch((e: unknown) => e)
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_OPTION' })
  expect((error as Error).message).toContain(`"${own}"`)
  expect((error as Error).message).toContain('"plain"')
  expect((await indexedDB.databases()).map((d) => d.name)).not.toContain(name)
})

test.skipIf(IN_FIREFOX)('an index that an upgrade adds over a small field finds the items written before it, and a unique one refuses a second', async () => {
  const name = uniqueName('gen-upgrade')
  const v1 = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } } })
  await v1.put('s', { id: 1, tag: 'a', body: 'x'.repeat(10_000) })
  v1.close()
  const v2 = await openTtlDB(name, {
    version: 2,
    purge: { mode: 'off' },
    stores: { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true, indexes: { byTag: { keyPath: 'tag', unique: true } } } },
  })
  expect(await v2.getAllFromIndex('s', 'byTag', 'a')).toMatchObject([{ id: 1, tag: 'a', body: 'x'.repeat(10_000) }])
  await expect(v2.add('s', { id: 2, tag: 'a' })).rejects.toMatchObject({ name: 'ConstraintError' })
  v2.close()
})

test.skipIf(IN_FIREFOX)("indexes over a field's property (title.length, a.b in a compound path) cover the rows", async () => {
  const name = uniqueName('gen-paths')
  const db = await openTtlDB(name, {
    version: 1,
    purge: { mode: 'off' },
    stores: { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true, indexes: { byLength: { keyPath: 'title.length' }, byNested: { keyPath: ['a.b', 'id'] } } } },
  })
  const item = { id: 1, title: 'x'.repeat(1_000), a: { b: 7, c: 'y'.repeat(1_000) } }
  await db.put('s', item)
  expect(await db.getAllFromIndex('s', 'byLength', 1_000)).toMatchObject([item])
  expect(await db.getAllFromIndex('s', 'byNested', [7, 1])).toMatchObject([item])
  db.close()
})

test.skipIf(IN_FIREFOX)('a write whose generation is deleted under it, with the clock stepped back, stays readable: a generation started meanwhile is not taken for a stray', async () => {
  const name = uniqueName('gen-numbers')
  const db = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: null, evictOnQuota: true } } })
  await db.put('s', { id: 'a', body: 'x' })
  await db.delete('s', 'a')
  // The system clock steps back an hour (NTP, the user): generations must not be numbered by it.
  vi.spyOn(Date, 'now').mockReturnValue(Date.now() - 3_600_000)
  // The deletion lists the databases slowly: the write meanwhile starts a generation of its own.
  const databases = indexedDB.databases.bind(indexedDB)
  vi.spyOn(indexedDB, 'databases').mockImplementation(async () => (await new Promise((resolve) => setTimeout(resolve, 50)), databases()))
  const other = await open(name)
  const dropping = dropUnreferenced(other, 's')
  await db.put('s', { id: 'b', body: 'y' })
  expect(await dropping).toBe(1)
  expect(await db.get('s', 'b')).toMatchObject({ id: 'b', body: 'y' })
  expect(await db.getAll('s')).toMatchObject([{ id: 'b', body: 'y' }])
  other.close()
  db.close()
})

test('deleteTtlDB deletes the database and its generations; indexedDB.deleteDatabase alone would leave them', async () => {
  const name = uniqueName('gen-delete')
  const db = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } } })
  await db.putAll('s', [{ id: 1, body: 'x' }, { id: 2, body: 'y' }])
  db.close()
  const ours = async () => (await indexedDB.databases()).map((database) => database.name).filter((other) => other === name || other?.startsWith(`${name}~`))
  expect((await ours()).length).toBe(IN_FIREFOX ? 1 : 2)
  await deleteTtlDB(name)
  expect(await ours()).toEqual([])
})

test.skipIf(IN_FIREFOX)('a write that lands while deleteTtlDB runs: afterwards every key listed is readable', async () => {
  const name = uniqueName('gen-delete-race')
  const db = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } } })
  try {
    await db.putAll('s', [{ id: 1, body: 'x' }, { id: 2, body: 'y' }])
    // The open handle writes while the deletion lists the databases: the handle reopens (and, if
    // the database is gone by then, recreates it as declared, as it does after any deletion).
    const databases = indexedDB.databases.bind(indexedDB)
    let late: Promise<unknown> | undefined
    vi.spyOn(indexedDB, 'databases').mockImplementation(async () => {
      late ??= db.put('s', { id: 'late', body: 'z' })
      await late
      return databases()
    })
    // And once more as soon as the database itself is gone.
    const deleteDatabase = indexedDB.deleteDatabase.bind(indexedDB)
    let last: Promise<unknown> | undefined
    vi.spyOn(indexedDB, 'deleteDatabase').mockImplementation((deleting) => {
      const request = deleteDatabase(deleting)
      if (deleting === name) request.addEventListener('success', () => (last = db.put('s', { id: 'last', body: 'w' })))
      return request
    })
    await deleteTtlDB(name)
    expect(late, 'the write ran during the deletion').toBeDefined()
    await last
    vi.restoreAllMocks()
    // Before, the write recreated the database before the generations were listed, and its value
    // was deleted with them: getAllKeys and count listed 'late', get returned undefined.
    const keys = await db.getAllKeys('s')
    for (const key of keys) expect(await db.get('s', key), `get(${String(key)}), listed by getAllKeys`).toBeDefined()
    expect(await db.count('s')).toBe((await db.getAll('s')).length)
  } finally {
    db.close()
    await deleteTtlDB(name)
  }
})

test.skipIf(IN_FIREFOX).for(['put', 'update'] as const)('%s: a write to a store keeping its values in generations, cut short by close(), rejects with CLOSED and writes nothing', async (kind) => {
  const name = uniqueName('gen-close')
  const stores = { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } }
  const db = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores })
  await db.put('s', { id: 0, v: 'first' })
  // The handle closes while the value is being stored in its generation, before the row is written.
  const { put } = IDBObjectStore.prototype
  vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    if (this.name === 'v') db.close()
    return put.apply(this, args)
  })
  try {
    const write = kind === 'put' ? db.put('s', { id: 1, v: 'cut' }) : db.update('s', 0, { v: 'cut' })
    // Before: InvalidStateError (the rows' transaction asked of the closed connection).
    await expect(write).rejects.toMatchObject({ name: 'TtlError', code: 'CLOSED' })
  } finally {
    // Restored even when the write times out: the spy would close nothing, but every later put would go through it.
    vi.restoreAllMocks()
  }
  const again = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores })
  try {
    expect(await again.getAll('s')).toMatchObject([{ id: 0, v: 'first' }])
  } finally {
    again.close()
    await deleteTtlDB(name)
  }
})

test.skipIf(IN_FIREFOX)('a store another handle keeps in generations is refused by a transaction of a handle that declares it plainly (UNSUPPORTED, nothing written); its own calls serve it', async () => {
  // The transaction refused only the stores its own handle declares with evictOnQuota: a store
  // that another handle (another app version) gave generations was let in, and its first read of
  // a value kept in a generation (another database) ended the transaction (TRANSACTION_INACTIVE).
  const name = uniqueName('gen-tx-other')
  const opts = (evictOnQuota: boolean) => ({ version: 1, purge: { mode: 'off' as const }, stores: { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota } } })
  const keeper = await openTtlDB(name, opts(true))
  const plain = await openTtlDB(name, opts(false))
  try {
    await keeper.put('s', { id: 'kept', body: 'in a generation' })
    const refused = plain.transaction('s', 'readwrite', async (tx) => {
      await tx.put('s', { id: 'own', body: 'in its row' })
      return tx.get('s', 'kept')
    })
    await expect(refused).rejects.toMatchObject({ name: 'TtlError', code: 'UNSUPPORTED', message: expect.stringContaining('"s"') })
    // It says why, though this handle declares no evictOnQuota: the database was given it elsewhere.
    await expect(refused).rejects.toMatchObject({ message: expect.stringContaining('another version of the app') })
    await plain.put('s', { id: 'own', body: 'by the handle' })
    const expected = [{ id: 'kept', body: 'in a generation' }, { id: 'own', body: 'by the handle' }]
    for (const db of [keeper, plain]) expect(await db.getAll('s')).toMatchObject(expected)
    expect(await plain.get('s', 'kept')).toMatchObject(expected[0])
  } finally {
    keeper.close()
    plain.close()
    await deleteTtlDB(name)
  }
})
