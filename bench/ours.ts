/** Our library, opened fresh per trial on a clock the scenario moves, seeded like every peer. */
import { openTtlDB, type PurgeOptions, type TtlDB } from '../src/index.js'
import { chunks, DEFAULT_TTL, freshName, LIVE_WRITE, manualClock, NOW, T0, type Dataset, type Item, type ManualClock } from './data.js'
import { deleteDatabase } from './peers/raw.js'

export const STORE = 'items'
export type Ours = TtlDB

/**
 * Opens a fresh store (default TTL, only the library's own expiry index), seeds it with `data`
 * (the dead items written an hour before NOW), runs `use` at NOW, deletes it.
 */
export async function withOurs<T>(
  data: Dataset,
  use: (db: Ours) => Promise<T>,
  purge: PurgeOptions = { mode: 'off' },
): Promise<T> {
  const name = freshName('ours')
  const clock = manualClock()
  const db = await openTtlDB(name, { version: 1, stores: { [STORE]: { keyPath: 'id', defaultTtl: DEFAULT_TTL } }, clock, purge })
  try {
    await seed(db, data.dead, clock, T0)
    await seed(db, data.live, clock, LIVE_WRITE)
    // A purge worker starts (and connects) on first use: start it before anything is dead, so
    // a timed purge measures purging, not the worker's start-up.
    if (purge.mode === 'worker') await db.purgeExpired(STORE)
    clock.set(NOW)
    return await use(db)
  } finally {
    db.close()
    await deleteDatabase(name)
  }
}

async function seed(db: Ours, items: Item[], clock: ManualClock, at: number): Promise<void> {
  clock.set(at)
  for (const chunk of chunks(items, 10_000)) await db.putAll(STORE, chunk)
}
