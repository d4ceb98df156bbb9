// Calls on one store apply in the order they were made, awaited or not, as requests issued in
// order in IndexedDB do (transactions over overlapping scopes run in the order they were created):
// whatever a call awaits before its transaction opens (a lazily loaded chunk, the values stashed
// in a generation first, owed touches, a gate) must not let a later call's transaction open first.
import { expect, test } from 'vitest'
import * as core from '../../src/core.js'
import { closeAndDeleteAfterTest, freshDB, manualClock, uniqueName } from '../helpers.js'

/** In Node (fake-indexeddb) an `evictOnQuota` store keeps its values in generations; in Firefox in its rows. */
const stores = {
  plain: { keyPath: 'id', defaultTtl: 60 },
  kept: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true },
} as const

for (const store of ['plain', 'kept'] as const) {
  test(`${store}: put then delete of one key, not awaited, leaves no item`, async () => {
    const db = await freshDB({ stores })
    await Promise.all([db.put(store, { id: 1 }), db.delete(store, 1)])
    expect(await db.get(store, 1)).toBeUndefined()
  })

  test(`${store}: put then put of one key, not awaited, ends with the second value`, async () => {
    const db = await freshDB({ stores })
    await db.put(store, { id: 1, n: 0 })
    await Promise.all([db.put(store, { id: 1, n: 1 }), db.put(store, { id: 1, n: 2 })])
    expect(await db.get(store, 1)).toMatchObject({ n: 2 })
  })

  test(`${store}: delete then put of one key, not awaited, leaves the item`, async () => {
    const db = await freshDB({ stores })
    await db.put(store, { id: 1, n: 0 })
    await Promise.all([db.delete(store, 1), db.put(store, { id: 1, n: 1 })])
    expect(await db.get(store, 1)).toMatchObject({ n: 1 })
  })

  test(`${store}: put then clear, not awaited, leaves the store empty`, async () => {
    const db = await freshDB({ stores })
    await Promise.all([db.put(store, { id: 1 }), db.clear(store)])
    expect(await db.getAll(store)).toEqual([])
  })

  test(`${store}: get and getAll called after a put not awaited see it`, async () => {
    const db = await freshDB({ stores })
    const put = db.put(store, { id: 1, n: 1 })
    const [one, all] = await Promise.all([db.get(store, 1), db.getAll(store), put])
    expect(one).toMatchObject({ n: 1 })
    expect(all).toMatchObject([{ n: 1 }])
  })
}

test('a put called right after a transaction lands after its writes', async () => {
  const db = await freshDB({ stores })
  const tx = db.transaction('plain', 'readwrite', (tx) => tx.put('plain', { id: 1, n: 1 }))
  const put = db.put('plain', { id: 1, n: 2 })
  await Promise.all([tx, put])
  expect(await db.get('plain', 1)).toMatchObject({ n: 2 })
})

test('a transaction called right after a put sees it', async () => {
  const db = await freshDB({ stores })
  const put = db.put('plain', { id: 1, n: 1 })
  const seen = db.transaction('plain', 'readonly', (tx) => tx.get('plain', 1))
  await put
  expect(await seen).toMatchObject({ n: 1 })
})

test('getStale called before a delete not awaited sees the expired item (the stale reads load on first use)', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, keepExpired: 60 } } })
  await db.put('s', { id: 1 })
  clock.advance(11_000)
  const [stale] = await Promise.all([db.getStale('s', 1), db.delete('s', 1)])
  expect(stale).toMatchObject({ value: { id: 1 } })
})

// setDefaultTtl and getDefaultTtl load on first use and change or read the settings, not the items:
// they keep their place among the store's calls all the same, in both entries.
const entries = {
  'idb-ttl': (clock: () => number) => freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 60 } } }),
  'idb-ttl/core': async (clock: () => number) => {
    const name = uniqueName('t')
    const db = await core.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
    closeAndDeleteAfterTest(db, name)
    return db
  },
}

for (const [entry, open] of Object.entries(entries)) {
  test(`${entry}: getDefaultTtl called after a setDefaultTtl not awaited reads the new default`, async () => {
    const db = await open(manualClock())
    const set = db.setDefaultTtl('s', 5)
    expect(await db.getDefaultTtl('s')).toBe(5)
    await set
  })

  test(`${entry}: a get called before setDefaultTtl judges by the old default, one called after by the new`, async () => {
    const clock = manualClock()
    const db = await open(clock)
    await db.put('s', { id: 1 })
    clock.advance(10_000)
    const before = db.get('s', 1)
    const set = db.setDefaultTtl('s', 5)
    const after = db.get('s', 1)
    await set
    expect(await before).toMatchObject({ id: 1 })
    expect(await after).toBeUndefined()
  })
}
