/** Small helpers shared by the semantics suites (SPEC §1–4). */
import { deleteDB } from 'idb'
import { afterEach, expect, vi } from 'vitest'
import type { TtlDB } from '../../src/index.js'
import { MAX_DEFER_MS } from '../../src/reads/touch.js'
import { META_STORE } from '../../src/layout/expiry-index.js'
import { SOON } from '../waits.js'

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

/**
 * How long after a read its touch is surely still unwritten: a touch waits at most
 * {@link MAX_DEFER_MS} on a timer (less a margin for timers that fire a little early).
 */
const SURELY_OWED_MS = MAX_DEFER_MS - 100

/** What a test calls when the machine was too slow for the order a scenario needs (vitest's `skip`). */
type Skip = (condition: boolean, note: string) => void

function tooSlow(skip: Skip, readAt: number, what: string): void {
  const ms = Math.round(performance.now() - readAt)
  skip(ms >= SURELY_OWED_MS, `${what} ended ${ms} ms after the read: the reader's timer may have written the touch first`)
}

/**
 * SPEC §3 and §7 across tabs, a write between a read and the write of its touch: `reader` reads
 * an item of a `touchOnRead` store (default 10 s) at 5 s and owes a touch to 5 s; `writer`, in
 * another tab, rewrites the item at 7 s; then `reader` writes what it owes (a count settles it).
 * The touch must not lower `_ts` back to 5 s: the item lives until 17 s. The reader's timer would
 * write the touch within {@link MAX_DEFER_MS} of the read; when the other tab's write took that
 * long the order is not the one tested, and the test is skipped.
 */
export async function touchSparesLaterWrite(reader: TtlDB<any>, writer: TtlDB<any>, clock: { now: number; advance(ms: number): void }, skip: Skip): Promise<void> {
  const ts0 = Math.floor(clock.now / 1000)
  await reader.put('s', { id: 'a', v: 1 })
  clock.advance(5000)
  const readAt = performance.now()
  expect(await reader.get('s', 'a'), 'read at 5 s, which owes a touch to 5 s').toMatchObject({ v: 1, _ts: ts0 + 5 })
  clock.advance(2000)
  await writer.put('s', { id: 'a', v: 2 })
  tooSlow(skip, readAt, "the other tab's write")
  expect(await writer.raw.get('s', 'a'), 'on disk after the write at 7 s, the touch still owed').toMatchObject({ v: 2, _ts: ts0 + 7 })
  expect(await reader.count('s'), 'a count writes the touches the reader owes first').toBe(1)
  expect(await writer.raw.get('s', 'a'), 'on disk once the reader wrote what it owed').toMatchObject({ v: 2, _ts: ts0 + 7 })
  clock.advance(9000) // 16 s: past 5 s + 10, before 7 s + 10
  expect(await writer.get('s', 'a'), 'at 16 s, 9 s after the write').toMatchObject({ v: 2 })
}

/**
 * SPEC §3 (expired stays expired) and §7 across tabs, a change of setting between a read and the
 * write of its touch: `reader` reads an item of a `touchOnRead` store (default 10 s) at 5 s and
 * owes a touch to 5 s. The clock steps to 11 s (a laptop waking up) before the touch is written;
 * there `changer`, in another tab, lengthens the default to an hour, which leaves the item
 * (stored `_ts` 0 s, expired at 10 s) dead for good. Then `reader` writes what it owes (a count
 * settles it): the touch must not bring the item back. Skipped as {@link touchSparesLaterWrite}.
 */
export async function touchSparesKilledItem(reader: TtlDB<any>, changer: TtlDB<any>, clock: { now: number; advance(ms: number): void }, skip: Skip): Promise<void> {
  const ts0 = Math.floor(clock.now / 1000)
  await reader.put('s', { id: 'a' })
  clock.advance(5000)
  const readAt = performance.now()
  expect(await reader.get('s', 'a'), 'read at 5 s, which owes a touch to 5 s').toMatchObject({ _ts: ts0 + 5 })
  clock.advance(6000) // 11 s: past the old expiry (10 s), before the touched one (15 s)
  await changer.setDefaultTtl('s', 3600)
  tooSlow(skip, readAt, "the other tab's change of default")
  expect(await changer.get('s', 'a'), 'in the other tab, the item the change left dead').toBeUndefined()
  expect(await changer.raw.get('s', 'a'), 'on disk after the change, the touch still owed').toMatchObject({ _ts: ts0 })
  expect(await reader.count('s'), 'a count writes the touches the reader owes first, then counts').toBe(0)
  expect(await changer.raw.get('s', 'a'), 'on disk once the reader wrote what it owed').toMatchObject({ _ts: ts0 })
  expect(await changer.get('s', 'a'), 'in the other tab, once the reader wrote what it owed').toBeUndefined()
  expect(await reader.get('s', 'a'), 'in the reading tab').toBeUndefined()
}

/**
 * Collects the unhandled rejections (Node and browsers) of the promises rejected while `run` runs,
 * to its end; `run`'s own failure is rethrown. Each is reported in a task after the one it was
 * rejected in: Node reports a task's rejections once its microtasks are done, before the next
 * task; a browser queues the reports of each microtask checkpoint's rejections, in order, on one
 * task source, so a rejection of its own left unhandled after `run` is reported after all of them.
 */
export async function unhandledDuring(run: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = []
  const last = new Error('the rejection unhandledDuring waits for the report of')
  let lastReported!: () => void
  const reported = new Promise<void>((resolve) => (lastReported = resolve))
  const onNode = (reason: unknown) => seen.push(reason)
  const onBrowser = (event: PromiseRejectionEvent) => {
    event.preventDefault()
    if (event.reason === last) lastReported()
    else seen.push(event.reason)
  }
  // Node's process, where there is one; the browser's window otherwise.
  const process = (globalThis as { process?: { on(e: string, f: (r: unknown) => void): void; off(e: string, f: (r: unknown) => void): void } }).process
  const node = process !== undefined && typeof window === 'undefined'
  if (node) process.on('unhandledRejection', onNode)
  else window.addEventListener('unhandledrejection', onBrowser)
  try {
    await run()
    if (node) await new Promise((resolve) => setImmediate(resolve))
    else {
      // Vitest logs each report a listener of the page hears: not this one's (those before it are in `seen`).
      const quiet = vi.spyOn(console, 'error').mockImplementation(() => {})
      try {
        void Promise.reject(last)
        await reported
      } finally {
        quiet.mockRestore()
      }
    }
  } finally {
    if (node) process!.off('unhandledRejection', onNode)
    else window.removeEventListener('unhandledrejection', onBrowser)
  }
  return seen
}

/**
 * SPEC §3 (expired stays expired) and §7 across tabs, a default shortened between a read and the
 * write of its touch: `reader` reads an item of a `touchOnRead` store (default 10 s) at 5 s and
 * owes a touch to 5 s; at 8 s `changer`, in another tab, shortens the default to 5 s, under which
 * the item as stored (`_ts` 0 s) is dead at once (no watermark says so: the old default had killed
 * nothing by then). Then `reader` writes what it owes: the touch must not bring the item back for
 * the 2 s a touch to 5 s would give it. Skipped as {@link touchSparesLaterWrite}.
 */
export async function touchSparesItemShorterDefaultKilled(reader: TtlDB<any>, changer: TtlDB<any>, clock: { now: number; advance(ms: number): void }, skip: Skip): Promise<void> {
  const ts0 = Math.floor(clock.now / 1000)
  await reader.put('s', { id: 'a' })
  clock.advance(5000)
  const readAt = performance.now()
  expect(await reader.get('s', 'a'), 'read at 5 s, which owes a touch to 5 s').toMatchObject({ _ts: ts0 + 5 })
  clock.advance(3000)
  await changer.setDefaultTtl('s', 5)
  tooSlow(skip, readAt, "the other tab's change of default")
  expect(await changer.get('s', 'a'), 'in the other tab, the item the shorter default killed').toBeUndefined()
  expect(await reader.count('s'), 'a count writes the touches the reader owes first, then counts').toBe(0)
  expect(await changer.raw.get('s', 'a'), 'on disk once the reader wrote what it owed').toMatchObject({ _ts: ts0 })
  expect(await changer.get('s', 'a'), 'in the other tab, once the reader wrote what it owed').toBeUndefined()
  expect(await reader.get('s', 'a'), 'in the reading tab').toBeUndefined()
}

/** The stores of each transaction `db` opens while `run` runs (in `realm`: another page's window, say). */
export async function scopes(db: { raw: { name: string } }, run: () => Promise<unknown>, realm: typeof globalThis = globalThis): Promise<string[][]> {
  const seen: string[][] = []
  const proto = realm.IDBDatabase.prototype
  const original = proto.transaction
  proto.transaction = function (this: IDBDatabase, names: string | string[], ...rest: never[]) {
    if (this.name === db.raw.name) seen.push([names].flat())
    return original.call(this, names, ...rest)
  } as typeof original
  try {
    await run()
  } finally {
    proto.transaction = original
  }
  return seen
}

/**
 * Runs `read` until it reads no settings (its realm holds a copy: the shared lock it asks for is
 * granted in a later task), for SOON's timeout at most; resolves to whether it came to hold one.
 */
export async function untilHeld(db: TtlDB<any>, read: () => Promise<unknown>): Promise<boolean> {
  for (const until = performance.now() + SOON.timeout; performance.now() < until; ) {
    if (!(await scopes(db, read)).flat().includes(META_STORE)) return true
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return false
}
