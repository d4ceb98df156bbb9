import { deleteDB, openDB } from 'idb'
import { afterEach, expect, vi } from 'vitest'
import { openTtlDB, type OpenTtlDBOptions, type PurgeReport } from '../src/index.js'

export { SOON } from './waits.js'

/** A clock tests move by hand: epoch ms, starting on a whole second. */
export function manualClock(startMs = 1_700_000_000_000) {
  let now = startMs
  const clock = () => now
  clock.set = (ms: number) => void (now = ms)
  clock.advance = (ms: number) => void (now += ms)
  Object.defineProperty(clock, 'now', { get: () => now })
  return clock as typeof clock & { readonly now: number }
}


/** Whether the tests run in Firefox, whose IndexedDB some tests find different (each says how). */
export const IN_FIREFOX = /\bFirefox\//.test(globalThis.navigator?.userAgent ?? '')

let counter = 0
const opened: { db: { close(): void }; name: string }[] = []

/** Closes `db` (any handle: `idb-ttl/core`'s too) and deletes database `name` after the test. */
export function closeAndDeleteAfterTest(db: { close(): void }, name: string): void {
  opened.push({ db, name })
}

/** A fresh database per call, closed and deleted after the test. */
export async function freshDB(options: Partial<OpenTtlDBOptions> & Pick<OpenTtlDBOptions, 'stores'>, name?: string) {
  const dbName = name ?? uniqueName('t')
  const db = await openTtlDB(dbName, { version: 1, purge: { mode: 'off' }, ...options })
  closeAndDeleteAfterTest(db, dbName)
  return db
}

/**
 * Opens a database whose purge runs in worker mode, writes an item that expires in 1 s and one
 * that never does, moves the clock 5 s on and waits (at most `timeout` ms) until the background
 * purge has deleted the first from the disk and reported it. Resolves to the handle, its clock
 * and what `onPurge` heard.
 */
export async function expireOneInTheBackground(timeout = 5000) {
  const clock = manualClock()
  const stores = { s: { keyPath: 'id', defaultTtl: 10 } }
  const db = await freshDB({ clock, stores, purge: { mode: 'worker', maxIntervalMs: 20, idleTimeoutMs: 5 } })
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  await db.putAll('s', [{ id: 'gone', ttl: 1 }, { id: 'kept', ttl: -1 }])
  clock.advance(5_000)
  // A slice reports after its last batch has committed: the disk empties first.
  await vi.waitFor(
    async () => {
      expect(await db.raw.getAllKeys('s')).toEqual(['kept'])
      expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(1)
    },
    { timeout, interval: 10 },
  )
  return { db, clock, reports }
}

/**
 * A database name no other test uses. In Chromium, test files run side by side in frames of one
 * origin and share IndexedDB, so a per-file counter alone would collide.
 */
export function uniqueName(prefix = 'db'): string {
  return `${prefix}-${crypto.randomUUID()}-${counter++}`
}

/** How long cleanup waits for a deletion: names are unique, so a slow one may end in the background. */
const CLEANUP_WAIT_MS = 10_000

afterEach(async () => {
  for (const { db, name } of opened.splice(0)) {
    db.close()
    // WebKit's in-memory IndexedDB deletes large stores slowly; no test depends on the wait.
    await Promise.race([deleteDB(name), new Promise((resolve) => setTimeout(resolve, CLEANUP_WAIT_MS))])
  }
})

/** How many items are physically in `store`, through a connection of its own (the handle may be closed). */
export async function countOnDisk(name: string, store: string): Promise<number> {
  const raw = await openDB(name)
  try {
    return await raw.count(store)
  } finally {
    raw.close()
  }
}
