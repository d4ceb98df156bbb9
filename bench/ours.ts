/** Our library, opened fresh per trial on a clock the scenario moves, seeded like every peer. */
import { openTtlDB, type PurgeOptions, type StoreConfig, type TtlDB } from '../src/index.js'
import { DEFAULT_TTL, freshName, manualClock, NOW, writeBatches, type Dataset } from './data.js'
import type { Fresh } from './harness.js'
import { deleteDatabase } from './peers/raw.js'

export const STORE = 'items'
/** A second store, for reads beside a purge of the first. */
export const OTHER = 'other'
export type Ours = TtlDB
/** The seeded store's declaration: the store default, only the library's own expiry index. */
export const ITEMS: StoreConfig = { keyPath: 'id', defaultTtl: DEFAULT_TTL }

// WebKit has no requestIdleCallback (the library falls back to setTimeout there too).
const onIdle = (done: () => void) =>
  typeof requestIdleCallback === 'function' ? requestIdleCallback(done, { timeout: 500 }) : setTimeout(done, 0)
const idle = () => new Promise<void>((resolve) => onIdle(() => setTimeout(resolve, 50)))

/**
 * With a background purge, before anything is dead: start the worker (it starts on first use)
 * so a timed purge measures purging, not start-up; and let the background slices that seeding
 * scheduled run now, finding nothing, so that only the timed purge deletes.
 */
export async function settle(db: Ours): Promise<void> {
  await db.purgeExpired(STORE)
  for (let i = 0; i < 3; i++) await idle()
}

/**
 * A fresh store (default TTL, only the library's own expiry index, plus `options` such as
 * `touchOnRead`) seeded with `data` (see {@link writeBatches}), its clock at NOW; with `other`,
 * a second store like it ({@link OTHER}) seeded with that data.
 */
export async function openOurs(
  data: Dataset,
  purge: PurgeOptions = { mode: 'off' },
  options: Partial<StoreConfig> = {},
  other?: Dataset,
): Promise<Fresh<Ours>> {
  const name = freshName('ours')
  const clock = manualClock()
  const store: StoreConfig = { ...ITEMS, ...options }
  const db = await openTtlDB(name, { version: 1, stores: { [STORE]: store, ...(other && { [OTHER]: store }) }, clock, purge })
  for (const [storeName, seed] of [[STORE, data], [OTHER, other]] as const) {
    for (const { at, items } of seed ? writeBatches(seed) : []) {
      clock.set(at)
      await db.putAll(storeName, items)
    }
  }
  if (purge.mode !== 'off') await settle(db)
  clock.set(NOW)
  const drop = async () => {
    db.close()
    await deleteDatabase(name)
  }
  return { db, drop }
}
