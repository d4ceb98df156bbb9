/** Small helpers shared by the semantics suites (SPEC §1–4). */
import { deleteDB } from 'idb'
import { afterEach, expect } from 'vitest'
import type { TtlDB } from '../../src/index.js'

/** Whole-second start of every test clock (epoch ms). */
export const T0 = 1_700_000_000_000
export const SECOND = 1000

/** Awaits `promise` and checks it rejected with a TtlError of `code` (by name, as SPEC says). */
export async function expectTtlError(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error, `expected TtlError ${code}, got a fulfilled promise`).toBeDefined()
  expect(error).toMatchObject({ name: 'TtlError', code })
}

/** Awaits `promise` and checks it rejected with a DOMException (or DOMException-like) named `name`. */
export async function expectDomError(promise: Promise<unknown>, name: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error, `expected ${name}, got a fulfilled promise`).toBeDefined()
  expect((error as { name?: string } | null)?.name, `rejected with ${String(error)}`).toBe(name)
}

/** Every stored value of a store, expired ones and the library's bookkeeping included. */
export function rawAll(db: TtlDB<any>, store: string): Promise<Record<string, unknown>[]> {
  return db.raw.getAll(store)
}

/** The stored value at `key` as it is on disk. */
export function rawGet(db: TtlDB<any>, store: string, key: IDBValidKey): Promise<Record<string, unknown> | undefined> {
  return db.raw.get(store, key)
}

/** Physical keys of a store. */
export function rawKeys(db: TtlDB<any>, store: string): Promise<IDBValidKey[]> {
  return db.raw.getAllKeys(store)
}

/** The whole metadata store (the library's settings), to check that a rejected change left it alone. */
export async function rawMeta(db: TtlDB<any>): Promise<unknown[]> {
  return db.raw.getAll('__idb_ttl_meta')
}

const names: string[] = []

/** Registers a database name to delete after the test (for databases opened outside `freshDB`). */
export function deleteAfter(name: string): string {
  names.push(name)
  return name
}

/**
 * Whether a database of this name exists, without creating it. WebKit also lists a creation that
 * was aborted, at version 0: no database (pinned in test/browser/engines.test.ts).
 */
export async function databaseExists(name: string): Promise<boolean> {
  return (await indexedDB.databases()).some((info) => info.name === name && info.version !== 0)
}

afterEach(async () => {
  for (const name of names.splice(0)) await deleteDB(name)
})

/**
 * SPEC §7 across connections: `reader` writes and reads an item of a `touchOnRead` store (default
 * 10 s) at 5 s; at 11 s, past its old expiry, a purge through `purger` must not delete it, and
 * `reader` still reads it. The touch is still pending when the purge runs.
 */
export async function touchedItemOutlivesPurge(reader: TtlDB<any>, purger: TtlDB<any>, clock: { advance(ms: number): void }): Promise<void> {
  await reader.put('s', { id: 'a' })
  clock.advance(5000)
  expect(await reader.get('s', 'a'), 'read at 5 s: the countdown restarts').toBeDefined()
  clock.advance(6000) // 11 s: past the old expiry (10 s), well before the new one (15 s)
  expect(await purger.purgeExpired('s'), 'items the other tab purged').toBe(0)
  expect(await reader.get('s', 'a'), 'the touched item, 6 s after its touch').toBeDefined()
}
