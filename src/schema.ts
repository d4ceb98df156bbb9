/**
 * The database layout: creating stores, expiry indexes and the metadata store in an upgrade,
 * checking a database opened without one, and applying changed `defaultTtl` declarations.
 */
import { TtlError } from './errors.js'
import { EXPIRY_INDEX, MARK_FIELD, META_STORE } from './expiry-index.js'
import { changeDefault, initialState, markOf, type StoreState } from './policy.js'
import { abortQuietly, done, req } from './request.js'
import { checkDefaultTtl, itemTtl, stampOf } from './ttl.js'
import type { StoreConfig } from './types.js'

export type StoreConfigs = Record<string, StoreConfig>

/** Validates the `stores` option: names, defaults, and no clash with the library's own names. */
export function checkStoreConfigs(stores: unknown): StoreConfigs {
  if (stores === null || typeof stores !== 'object') {
    throw new TtlError('INVALID_OPTION', 'openTtlDB needs a `stores` object: { storeName: { keyPath, defaultTtl } }')
  }
  for (const [name, config] of Object.entries(stores as StoreConfigs)) {
    if (name === META_STORE) throw new TtlError('INVALID_OPTION', `"${META_STORE}" is the library's own store name`)
    if (config === null || typeof config !== 'object') {
      throw new TtlError('INVALID_OPTION', `store "${name}" needs an options object`)
    }
    checkDefaultTtl(config.defaultTtl)
    if (config.indexes && EXPIRY_INDEX in config.indexes) {
      throw new TtlError('INVALID_OPTION', `"${EXPIRY_INDEX}" is the library's own index name`)
    }
  }
  return stores as StoreConfigs
}

/** Inside `upgradeneeded`: create what is missing, never delete anything. */
export function upgradeSchema(db: IDBDatabase, tx: IDBTransaction, stores: StoreConfigs, nowMs: number): void {
  const meta = db.objectStoreNames.contains(META_STORE) ? tx.objectStore(META_STORE) : db.createObjectStore(META_STORE)
  for (const [name, config] of Object.entries(stores)) {
    const store = db.objectStoreNames.contains(name)
      ? tx.objectStore(name)
      : db.createObjectStore(name, { keyPath: config.keyPath ?? null, autoIncrement: config.autoIncrement ?? false })
    if (!store.indexNames.contains(EXPIRY_INDEX)) {
      store.createIndex(EXPIRY_INDEX, MARK_FIELD)
      stampExisting(store, nowMs)
    }
    for (const [indexName, index] of Object.entries(config.indexes ?? {})) {
      if (!store.indexNames.contains(indexName)) {
        store.createIndex(indexName, index.keyPath, { unique: index.unique, multiEntry: index.multiEntry })
      }
    }
    const request = meta.get(name)
    request.onsuccess = () => {
      if (request.result === undefined) meta.put(initialState(config.defaultTtl ?? null), name)
    }
  }
}

/**
 * Items already in a store that gains TTL (made by plain idb, say) get `_ts` = now and a mark:
 * their countdown starts when TTL is added. Their `ttl` is read leniently: existing data cannot
 * be rejected.
 */
function stampExisting(store: IDBObjectStore, nowMs: number): void {
  const ts = stampOf(nowMs)
  const cursorRequest = store.openCursor()
  cursorRequest.onsuccess = () => {
    const cursor = cursorRequest.result
    if (!cursor) return
    const value = cursor.value
    if (Object.prototype.toString.call(value) === '[object Object]') {
      const mark = markOf(itemTtl(value.ttl, 'lenient'), ts)
      const stamped = { ...value, _ts: ts }
      if (mark) stamped[MARK_FIELD] = mark
      cursor.update(stamped)
    }
    cursor.continue()
  }
}

/** After opening: every declared store must exist with its expiry index. */
export function checkSchema(db: IDBDatabase, stores: StoreConfigs): void {
  const missing = [META_STORE, ...Object.keys(stores)].filter((name) => !db.objectStoreNames.contains(name))
  if (missing.length === 0) {
    const tx = db.transaction(Object.keys(stores).length ? Object.keys(stores) : [META_STORE])
    const untracked = Object.keys(stores).filter((name) => !tx.objectStore(name).indexNames.contains(EXPIRY_INDEX))
    abortQuietly(tx)
    if (untracked.length === 0) return
    missing.push(...untracked)
  }
  throw new TtlError(
    'SCHEMA_MISMATCH',
    `database "${db.name}" version ${db.version} lacks TTL stores or indexes for ${missing.join(', ')}: ` +
      'open it with a higher version',
  )
}

/** Applies every declared `defaultTtl` that differs from the one last declared. */
export async function applyDeclaredDefaults(
  db: IDBDatabase,
  stores: StoreConfigs,
  nowMs: number,
  durability: IDBTransactionDurability | undefined,
): Promise<void> {
  const tx = db.transaction(META_STORE, 'readwrite', { durability })
  const meta = tx.objectStore(META_STORE)
  const committed = done(tx)
  const states = await Promise.all(Object.keys(stores).map((name) => req<StoreState | undefined>(meta.get(name))))
  Object.entries(stores).forEach(([name, config], i) => {
    const declared = config.defaultTtl ?? null
    const state = states[i] ?? initialState(declared)
    if (states[i] === undefined || state.declared !== declared) {
      meta.put({ ...changeDefault(state, declared, nowMs), declared }, name)
    }
  })
  await committed
}
