/**
 * TanStack Query's `AsyncStorage` over a TTL store (SPEC §13): a persisted query lives as the
 * store's `defaultTtl` (or the `ttl` option) says, is never returned once expired, and leaves the
 * disk through the background purge, with no `persisterGc` call.
 */
import type { TtlDB } from '../db.js'
import { TtlError } from '../rules/errors.js'
import type { TtlAsyncStorage, TtlStorageOptions } from './types.js'

/** What the store holds per entry: the persister's value, out of line under its key. */
interface Entry<T> {
  value: T
  ttl?: number
}

/**
 * TanStack Query's `AsyncStorage` (for `experimental_createQueryPersister`) over `store` of `db`,
 * a store declared with no `keyPath` (`{ defaultTtl: 86_400 }`: the persister's `maxAge` in
 * seconds).
 * @throws TtlError `UNKNOWN_STORE` when `db` declares no such store; `INVALID_OPTION` when it has a
 * key path (the persister's keys are given to each write), or for an unknown option
 */
export function ttlStorage<TStorageValue = string>(db: TtlDB<any>, store: string, options: TtlStorageOptions = {}): TtlAsyncStorage<TStorageValue> {
  checkStore(db, store)
  for (const name of Object.keys(options)) {
    if (name !== 'ttl') throw new TtlError('INVALID_OPTION', `ttlStorage("${store}"): unknown option "${name}" (known: ttl)`)
  }
  const entry = (value: TStorageValue): Entry<TStorageValue> => (options.ttl === undefined ? { value } : { value, ttl: options.ttl })
  return {
    async getItem(key) {
      const found = (await db.get(store, key)) as Entry<TStorageValue> | undefined
      return found === undefined ? null : found.value
    },
    async setItem(key, value) {
      await db.put(store, entry(value), key)
    },
    async removeItem(key) {
      await db.delete(store, key)
    },
    entries() {
      return db.transaction(store, 'readonly', async (tx) => {
        const [keys, values] = await Promise.all([tx.getAllKeys(store), tx.getAll(store)])
        return keys.map((key, i): [string, TStorageValue] => [String(key), (values[i] as Entry<TStorageValue>).value])
      })
    },
  }
}

function checkStore(db: TtlDB<any>, store: string): void {
  let keyPath: string | string[] | null
  try {
    keyPath = db.raw.transaction(store, 'readonly').objectStore(store).keyPath
  } catch {
    throw new TtlError('UNKNOWN_STORE', `ttlStorage: "${String(store)}" is not a store of database "${db.raw.name}"`)
  }
  if (keyPath !== null) {
    throw new TtlError('INVALID_OPTION', `ttlStorage("${store}"): the store has the key path ${JSON.stringify(keyPath)}; declare it without one (the persister gives each entry its key)`)
  }
}
