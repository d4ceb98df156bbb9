/**
 * TanStack Query's `AsyncStorage` over a TTL store (SPEC §13): a persisted query lives as the
 * store's `defaultTtl` (or the `ttl` option) says, is never returned once expired, and leaves the
 * disk through the background purge, with no `persisterGc` call.
 */
import type { TtlDB } from '../assembly/db.js'
import { TtlError } from '../rules/errors.js'
import { isValidTtl, MAX_TTL } from '../rules/ttl.js'
import type { TtlAsyncStorage, TtlStorageOptions } from './types.js'

/**
 * What the store holds per entry: the persister's value and its key, so that one read of the
 * values (`getAll`) lists the entries, where `db.transaction` is refused (`evictOnQuota` stores).
 */
interface Entry<T> {
  key: string
  value: T
  ttl?: number | null
}

/**
 * TanStack Query's `AsyncStorage` (for `experimental_createQueryPersister`) over `store` of `db`,
 * a store declared with no `keyPath` (`{ defaultTtl: 86_400 }`: the persister's `maxAge` in
 * seconds), or with `keyPath: 'key'`, which sliding expiry (`touchOnRead: true`) needs.
 * @throws TtlError `UNKNOWN_STORE` when `db` declares no such store; `INVALID_OPTION` when it has
 * another key path, or for an unknown option; `INVALID_TTL` for a `ttl` that is not -1 or 1 …
 * 2147483647 seconds
 */
export function ttlStorage<TStorageValue = string>(db: TtlDB<any>, store: string, options: TtlStorageOptions = {}): TtlAsyncStorage<TStorageValue> {
  const inline = keyed(db, store)
  for (const name of Object.keys(options)) {
    if (name !== 'ttl') throw new TtlError('INVALID_OPTION', `ttlStorage("${store}"): unknown option "${name}" (known: ttl)`)
  }
  const { ttl } = options
  if (!isValidTtl(ttl)) throw new TtlError('INVALID_TTL', `ttlStorage("${store}"): ttl must be -1 or an integer from 1 to ${MAX_TTL}; got ${String(ttl)}`)
  return {
    async getItem(key) {
      const found = (await db.get(store, key)) as Entry<TStorageValue> | undefined
      return found === undefined ? null : found.value
    },
    async setItem(key, value) {
      // A `ttl` left undefined inherits the store's default, as an absent one does.
      await db.put(store, { key, value, ttl } satisfies Entry<TStorageValue>, inline ? undefined : key)
    },
    async removeItem(key) {
      await db.delete(store, key)
    },
    async entries() {
      // An entry written by an earlier ttlStorage, which kept no key in it, is left out: its query is
      // restored by getItem, and expires all the same.
      const all = (await db.getAll(store)) as Partial<Entry<TStorageValue>>[]
      return all.filter((entry) => entry.key !== undefined).map((entry) => [entry.key!, entry.value!])
    },
  }
}

/** Whether `store` keeps the key in the entry (`keyPath: 'key'`) rather than out of line. */
function keyed(db: TtlDB<any>, store: string): boolean {
  let keyPath: string | string[] | null
  try {
    keyPath = db.raw.transaction(store, 'readonly').objectStore(store).keyPath
  } catch {
    throw new TtlError('UNKNOWN_STORE', `ttlStorage: "${String(store)}" is not a store of database "${db.raw.name}"`)
  }
  if (keyPath !== null && keyPath !== 'key') {
    throw new TtlError('INVALID_OPTION', `ttlStorage("${store}"): the store has the key path ${JSON.stringify(keyPath)}; declare it without one, or with keyPath: 'key' (the persister gives each entry its key)`)
  }
  return keyPath === 'key'
}
