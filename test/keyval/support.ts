/** Helpers of the idb-ttl/keyval tests: a fresh store with a test clock, and what is on its disk. */
import { openDB } from 'idb'
import { createStore, type StoreOptions } from '../../src/keyval.js'
import { manualClock, uniqueName } from '../helpers.js'
import { T0 } from '../semantics/support.js'

/** The store name the tests use in each database. */
export const STORE = 'kv'

/**
 * A store of its own (a fresh database, never deleted: like idb-keyval's, its connection stays
 * open) whose clock the test moves by hand, from T0.
 */
export function fresh(options: Omit<StoreOptions, 'clock'> = {}) {
  const clock = manualClock(T0)
  const name = uniqueName('keyval')
  return { store: createStore(name, STORE, { ...options, clock }), clock, name }
}

/** Every `[key, stored value]` of the store as it is on disk, through a connection of its own. */
export async function onDisk(name: string, store = STORE): Promise<[IDBValidKey, unknown][]> {
  const db = await openDB(name)
  try {
    const [keys, values] = await Promise.all([db.getAllKeys(store), db.getAll(store)])
    return keys.map((key, i) => [key, values[i]])
  } finally {
    db.close()
  }
}
