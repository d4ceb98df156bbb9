/**
 * idb-keyval's calls with their signatures, over entries that may expire (SPEC §14). Reads hide an
 * entry from the instant it expires; writes stamp it by the shared resolver (rules/ttl.ts): its own
 * `ttl`, else the store's `defaultTtl`, counted from this write.
 */
import { itemTtl } from '../rules/resolver.js'
import { effectiveTtl, stampOf } from '../rules/ttl.js'
import { expiryOf, wrap, type Wrapped } from './entry.js'
import { purgeAt } from './purge.js'
import { promisifyRequest } from './request.js'
import { nowOf, stateOf } from './state.js'
import { defaultGetStore } from './store.js'
import type { SetOptions, UseStore } from './types.js'

/** An entry that is expired: left out of what a call returns. */
const GONE = {}

/** The store a write's third argument names: a store as in idb-keyval, or options. */
function storeOf(options: UseStore | SetOptions | undefined): UseStore {
  return typeof options == 'function' ? options : (options?.store ?? defaultGetStore())
}

/**
 * How a write stores its values, by its `ttl` and the store's default, counted from now.
 * @throws TtlError `INVALID_TTL`
 */
function writer(use: UseStore, options: UseStore | SetOptions | undefined): (value: unknown) => unknown {
  const state = stateOf(use)
  // A store is a function, with no `ttl`.
  const seconds = effectiveTtl(itemTtl((options as SetOptions | undefined)?.ttl), state.defaultTtl)
  // expiresAt's instant, for an item whose `_ts` is now.
  const expiry = seconds === null ? Infinity : (stampOf(nowOf(state)) + seconds) * 1000
  purgeAt(use, expiry)
  return (value) => wrap(value, expiry)
}

/** How a read sees stored entries now: the value, or `gone` once expired. */
function reader(use: UseStore, gone?: unknown): (stored: unknown) => any {
  const now = nowOf(stateOf(use))
  return (stored) => {
    const expiry = expiryOf(stored)
    if (expiry === undefined) return stored
    if (now < expiry) return (stored as Wrapped).v
    // At once, whatever round is due later: the store holds what a round deletes.
    purgeAt(use, 0)
    return gone
  }
}

/**
 * Get a value by its key: `undefined` when there is none or it has expired.
 *
 * @param key
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function get<T = any>(key: IDBValidKey, customStore = defaultGetStore()): Promise<T | undefined> {
  return customStore('readonly', (store) => promisifyRequest(store.get(key)).then(reader(customStore)))
}

/**
 * Set a value with a key. The entry expires `ttl` seconds after this write, or as the store's
 * `defaultTtl` says.
 *
 * @param key
 * @param value
 * @param options A store (as in idb-keyval), or `{ ttl, store }`.
 * @throws TtlError `INVALID_TTL` (the promise rejects; nothing is written)
 */
export function set(key: IDBValidKey, value: any, options?: UseStore | SetOptions): Promise<void> {
  const use = storeOf(options)
  return use('readwrite', (store) => {
    store.put(writer(use, options)(value), key)
    return promisifyRequest(store.transaction)
  })
}

/**
 * Set multiple values at once, all with the same lifetime. This is faster than calling set()
 * multiple times. It's also atomic – if one of the pairs can't be added, none will be added.
 *
 * @param entries Array of entries, where each entry is an array of `[key, value]`.
 * @param options A store (as in idb-keyval), or `{ ttl, store }`.
 * @throws TtlError `INVALID_TTL` (the promise rejects; nothing is written)
 */
export function setMany(entries: [IDBValidKey, any][], options?: UseStore | SetOptions): Promise<void> {
  const use = storeOf(options)
  return use('readwrite', (store) => {
    const write = writer(use, options)
    entries.forEach((entry) => store.put(write(entry[1]), entry[0]))
    return promisifyRequest(store.transaction)
  })
}

/**
 * Get multiple values by their keys (`undefined` for each one missing or expired).
 *
 * @param keys
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function getMany<T = any>(keys: IDBValidKey[], customStore = defaultGetStore()): Promise<(T | undefined)[]> {
  return customStore('readonly', (store) => {
    const read = reader(customStore)
    return Promise.all(keys.map((key) => promisifyRequest(store.get(key)).then(read)))
  })
}

/**
 * Update a value. This lets you see the old value (`undefined` once expired) and update it as an
 * atomic operation; the new value's lifetime counts from now, as `set`'s.
 *
 * @param key
 * @param updater A callback that takes the old value and returns a new value.
 * @param options A store (as in idb-keyval), or `{ ttl, store }`.
 * @throws TtlError `INVALID_TTL` (the promise rejects; nothing is written)
 */
export function update<T = any>(key: IDBValidKey, updater: (oldValue: T | undefined) => T, options?: UseStore | SetOptions): Promise<void> {
  const use = storeOf(options)
  return use('readwrite', (store) => {
    const write = writer(use, options)
    const read = reader(use)
    // A promise made by hand, not a chain: the put must be issued while the transaction is active.
    return new Promise<void>((resolve, reject) => {
      const request = store.get(key)
      request.onsuccess = () => {
        try {
          store.put(write(updater(read(request.result))), key)
          resolve(promisifyRequest(store.transaction))
        } catch (error) {
          reject(error)
        }
      }
      request.onerror = () => reject(request.error)
    })
  })
}

/**
 * Delete a particular key from the store.
 *
 * @param key
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function del(key: IDBValidKey, customStore = defaultGetStore()): Promise<void> {
  return customStore('readwrite', (store) => {
    store.delete(key)
    return promisifyRequest(store.transaction)
  })
}

/**
 * Delete multiple keys at once.
 *
 * @param keys List of keys to delete.
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function delMany(keys: IDBValidKey[], customStore = defaultGetStore()): Promise<void> {
  return customStore('readwrite', (store) => {
    keys.forEach((key) => store.delete(key))
    return promisifyRequest(store.transaction)
  })
}

/**
 * Clear all values in the store.
 *
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function clear(customStore = defaultGetStore()): Promise<void> {
  return customStore('readwrite', (store) => {
    store.clear()
    return promisifyRequest(store.transaction)
  })
}

/** The live entries of the store, in key order: keys and stored values read in one transaction. */
function live(customStore: UseStore): Promise<[IDBValidKey, unknown][]> {
  return customStore('readonly', (store) => {
    const read = reader(customStore, GONE)
    return Promise.all([promisifyRequest(store.getAllKeys()), promisifyRequest(store.getAll())]).then(([keys, stored]) =>
      keys.map((key, i): [IDBValidKey, unknown] => [key, read(stored[i])]).filter((entry) => entry[1] !== GONE),
    )
  })
}

/**
 * Get all keys in the store (reading the values too, to leave the expired out).
 *
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function keys<KeyType extends IDBValidKey>(customStore = defaultGetStore()): Promise<KeyType[]> {
  return live(customStore).then((all) => all.map((entry) => entry[0] as KeyType))
}

/**
 * Get all values in the store.
 *
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function values<T = any>(customStore = defaultGetStore()): Promise<T[]> {
  return live(customStore).then((all) => all.map((entry) => entry[1] as T))
}

/**
 * Get all entries in the store. Each entry is an array of `[key, value]`.
 *
 * @param customStore Method to get a custom store. Use with caution (see the docs).
 */
export function entries<KeyType extends IDBValidKey, ValueType = any>(customStore = defaultGetStore()): Promise<[KeyType, ValueType][]> {
  return live(customStore) as Promise<[KeyType, ValueType][]>
}
