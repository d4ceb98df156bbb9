// Takeovers and upgrades over dirty data: values plain idb wrote, dead items under new unique
// indexes, and upgrades that fail — each rejects openTtlDB with an error that says why.
import { openDB } from 'idb'
import { expect, test } from 'vitest'
import { openTtlDB, type OpenTtlDBOptions } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { databaseExists, deleteAfter, SECOND, T0, unhandledDuring } from './support.js'

const TS0 = T0 / SECOND

/** A database plain idb made at version 1, with one store `s` holding `values` under keys 0, 1, … */
async function plainDB(values: unknown[], keyPath: string | null = null): Promise<string> {
  const name = deleteAfter(uniqueName('plain'))
  const db = await openDB(name, 1, { upgrade: (raw) => void raw.createObjectStore('s', keyPath ? { keyPath } : {}) })
  for (const [i, value] of values.entries()) await (keyPath ? db.put('s', value) : db.put('s', value, i))
  db.close()
  return name
}

test.for([
  { name: 'ttl -1 with a stale $ttl', value: { id: 'a', ttl: -1, $ttl: 5 }, life: Infinity },
  { name: 'inheriting with a stale $ttl and _ts', value: { id: 'a', $ttl: 1e11 + 5, _ts: 3 }, life: 10 },
  { name: 'own ttl with a string _ts', value: { id: 'a', ttl: 4, _ts: 'yesterday' }, life: 4 },
  { name: 'an invalid ttl (read leniently)', value: { id: 'a', ttl: 'soon' }, life: 10 },
])('a takeover stamps values plain idb wrote, whatever fields they carry ($name)', async ({ value, life }) => {
  const name = await plainDB([value], 'id')
  const clock = manualClock(T0)
  const db = await freshDB({ clock, version: 2, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
  const { $ttl: _, ...visible } = value as Record<string, unknown>
  expect(await db.get('s', 'a')).toEqual({ ...visible, _ts: TS0 })
  if (life !== Infinity) {
    clock.set(T0 + life * SECOND - 1)
    expect(await db.get('s', 'a')).toBeDefined()
    clock.set(T0 + life * SECOND)
    expect(await db.get('s', 'a')).toBeUndefined()
  } else {
    clock.set(T0 + 1e9 * SECOND)
    expect(await db.get('s', 'a')).toBeDefined()
  }
  expect(await db.purgeExpired('s')).toBe(life === Infinity ? 0 : 1)
})

test('a takeover of a store holding values that are not plain objects is refused, naming the store and the count, with nothing changed', async () => {
  const name = await plainDB([{ id: 0 }, 'text', 42, [1, 2], { id: 4 }])
  const error = await openTtlDB(name, { version: 2, clock: manualClock(T0), purge: { mode: 'off' }, stores: { s: { defaultTtl: 10 } } }).catch((e: unknown) => e)
  expect(error).toMatchObject({ name: 'TtlError', code: 'INVALID_VALUE' })
  expect((error as Error).message).toMatch(/store "s" holds 3 values that are not plain objects \(the first at key 1\)/)
  const raw = await openDB(name)
  expect(raw.version, 'the upgrade was abandoned').toBe(1)
  expect(raw.objectStoreNames.contains('__idb_ttl_meta')).toBe(false)
  expect(await raw.getAll('s')).toEqual([{ id: 0 }, 'text', 42, [1, 2], { id: 4 }])
  raw.close()
})

test('an upgrade adding a unique index is not blocked by dead items holding the same value', async () => {
  const clock = manualClock(T0)
  const name = uniqueName('unique-upgrade')
  const v1 = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
  await v1.putAll('s', [{ id: 'a', email: 'x@e' }, { id: 'b', email: 'x@e', ttl: 5 }, { id: 'c', email: 'y@e', ttl: 100 }])
  clock.set(T0 + 10 * SECOND)
  v1.close()
  const upgrade = async () => {
    const v2 = await freshDB(
      { clock, version: 2, stores: { s: { keyPath: 'id', defaultTtl: 10, indexes: { byEmail: { keyPath: 'email', unique: true } } } } },
      name,
    )
    expect(await v2.getFromIndex('s', 'byEmail', 'y@e')).toMatchObject({ id: 'c' })
    expect(await v2.getAllKeys('s')).toEqual(['c'])
    expect(await v2.raw.getAllKeys('s'), 'the dead holders were deleted by the upgrade').toEqual(['c'])
  }
  expect(await unhandledDuring(upgrade)).toEqual([])
})

test('an upgrade adding a unique index over live duplicates rejects with a ConstraintError that names the index, and no unhandled rejection', async () => {
  const clock = manualClock(T0)
  const name = uniqueName('unique-live')
  const v1 = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10 } } }, name)
  await v1.putAll('s', [{ id: 'a', email: 'x@e' }, { id: 'b', email: 'x@e' }])
  v1.close()
  let error: unknown
  const unhandled = await unhandledDuring(async () => {
    error = await openTtlDB(name, {
      version: 2,
      clock,
      purge: { mode: 'off' },
      stores: { s: { keyPath: 'id', defaultTtl: 10, indexes: { byEmail: { keyPath: 'email', unique: true } } } },
    }).catch((e: unknown) => e)
  })
  expect(unhandled).toEqual([])
  expect(error).toMatchObject({ name: 'ConstraintError', message: expect.stringMatching(/unique index "byEmail" of store "s"/) })
  const raw = await openDB(name)
  expect(raw.version).toBe(1)
  raw.close()
})

/** Opens a new database with the app's `upgrade`: what openTtlDB rejected with, and the unhandled rejections meanwhile. */
async function openWithUpgrade(name: string, upgrade: NonNullable<OpenTtlDBOptions['upgrade']>) {
  let error: unknown
  const unhandled = await unhandledDuring(async () => {
    error = await openTtlDB(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 10 } }, upgrade }).catch((e: unknown) => e)
  })
  return { error, unhandled }
}

test('an upgrade callback that throws rejects openTtlDB with its error, and no unhandled rejection', async () => {
  const name = deleteAfter(uniqueName('upgrade-throws'))
  const { error, unhandled } = await openWithUpgrade(name, () => {
    throw new Error('migration failed')
  })
  expect(unhandled).toEqual([])
  expect(error).toMatchObject({ message: 'migration failed' })
  expect(await databaseExists(name), 'an aborted first upgrade creates no database').toBe(false)
})

test("the upgrade callback is given idb's view of the database, the one `raw` gives afterwards: idb's calls work on it", async () => {
  const name = deleteAfter(uniqueName('upgrade-view'))
  let given: unknown
  const db = await freshDB(
    {
      stores: { s: { keyPath: 'id', defaultTtl: 10 } },
      upgrade(raw) {
        given = raw
        void raw.createObjectStore('mine').put('value', 'key')
      },
    },
    name,
  )
  expect(db.raw, 'one view per connection').toBe(db.raw)
  expect(db.raw).toBe(given)
  expect(await db.raw.get('mine', 'key'), "idb's shortcut").toBe('value')
  expect(db.raw.transaction('s').store.name, "idb's `store` of a one-store transaction").toBe('s')
})

test("an upgrade callback that throws after touching idb's view of the transaction: no unhandled rejection of its `done`", async () => {
  const name = deleteAfter(uniqueName('upgrade-done'))
  const { error, unhandled } = await openWithUpgrade(name, (raw) => {
    // idb makes the transaction's `done` promise when its view is first made.
    void raw.createObjectStore('mine').transaction
    throw new Error('migration failed')
  })
  expect(unhandled).toEqual([])
  expect(error).toMatchObject({ message: 'migration failed' })
})
