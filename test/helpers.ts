import { deleteDB, openDB } from 'idb'
import { afterEach } from 'vitest'
import { openTtlDB, type OpenTtlDBOptions, type TtlDB } from '../src/index.js'

/** A clock tests move by hand: epoch ms, starting on a whole second. */
export function manualClock(startMs = 1_700_000_000_000) {
  let now = startMs
  const clock = () => now
  clock.set = (ms: number) => void (now = ms)
  clock.advance = (ms: number) => void (now += ms)
  Object.defineProperty(clock, 'now', { get: () => now })
  return clock as typeof clock & { readonly now: number }
}

let counter = 0
const opened: { db: TtlDB<any>; name: string }[] = []

/** A fresh database per call, closed and deleted after the test. */
export async function freshDB(options: Partial<OpenTtlDBOptions> & Pick<OpenTtlDBOptions, 'stores'>, name?: string) {
  const dbName = name ?? uniqueName('t')
  const db = await openTtlDB(dbName, { version: 1, purge: { mode: 'off' }, ...options })
  opened.push({ db, name: dbName })
  return db
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
