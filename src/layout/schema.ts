/**
 * The database layout: the declaration checked, a database opened without an upgrade checked
 * against it, and changed `defaultTtl` declarations applied. Creating stores, expiry indexes and
 * the metadata store in an upgrade is `upgrade.ts`, which the page entries load only when an open
 * needs one (`connection.ts`).
 */
import { capacityOf, checkBoolean, checkCapacity, sameCapacity, TS_INDEX, type Capacity } from '../rules/capacity.js'
import { TtlError } from '../rules/errors.js'
import { refuse } from '../rules/refusal.js'
import { EXPIRY_INDEX, JOURNAL_STORE, META_STORE } from './expiry-index.js'
import { GEN_INDEX } from './generation-index.js'
import { changeDefault, initialState, type StoreState } from '../rules/policy.js'
import { abortQuietly, done, req } from '../platform/request.js'
import { checkDefaultTtl } from '../rules/ttl.js'
import { unknownOption } from '../rules/known-options.js'
import { checkKeepExpired } from '../rules/grace.js'
import { announce, learn } from './watermarks.js'
import { changingSettings } from './held-settings.js'
import { OUTBOX_STORE, SYNC_STORE } from './sync-stores.js'
import type { StoreConfig } from '../rules/types.js'

export type StoreConfigs = Record<string, StoreConfig>

/**
 * The settings an entry's declarations cannot carry (`idb-ttl/core`: a capacity, `mirror`), which
 * its open leaves as the database has them: another handle declared them, and keeps honouring them.
 */
export type Undeclarable = readonly ('capacity' | 'mirror')[]

/** `value` is an object (the options of a store, an index, `openTtlDB`, the purge). */
export const isOptions = (value: unknown): value is object => value !== null && typeof value === 'object'

/**
 * @param where how the message names the object (`store "sessions"`, `purge`)
 * @throws TtlError `INVALID_OPTION` naming the unknown option and the closest known one (`refuse`d)
 */
export function refuseUnknown(where: string, options: object, kind: Parameters<typeof unknownOption>[1]): void {
  const name = unknownOption(options, kind)
  if (name !== undefined) throw refuse('INVALID_OPTION', 'unknownOption', where, name, kind)
}

/**
 * Validates the `stores` option: names, defaults, and no clash with the library's own names.
 * @throws TtlError `INVALID_OPTION` (`refuse`d: an open explains it), `INVALID_TTL`
 */
export function checkStoreConfigs(stores: unknown): StoreConfigs {
  if (!isOptions(stores)) throw refuse('INVALID_OPTION', 'stores')
  for (const [name, config] of Object.entries(stores as StoreConfigs)) {
    const where = `store "${name}"`
    if ([META_STORE, JOURNAL_STORE, OUTBOX_STORE, SYNC_STORE].includes(name)) throw refuse('INVALID_OPTION', 'ownStore', name)
    if (!isOptions(config)) throw refuse('INVALID_OPTION', 'storeObject', name)
    refuseUnknown(where, config, 'store')
    checkDefaultTtl(config.defaultTtl, where)
    for (const [indexName, index] of Object.entries(config.indexes ?? {})) {
      if (!isOptions(index)) throw refuse('INVALID_OPTION', 'indexObject', indexName, name)
      refuseUnknown(`index "${indexName}" of ${where}`, index, 'index')
    }
    for (const option of ['keepTs', 'mirror', 'touchOnRead'] as const) checkBoolean(name, config, option)
    if (config.touchOnRead && (config.keyPath === undefined || config.keyPath === null)) throw refuse('INVALID_OPTION', 'touchOnRead', name)
    if (config.mirror && (config.keyPath !== 'id' || config.autoIncrement || config.evictOnQuota)) throw refuse('INVALID_OPTION', 'mirror', name)
    checkCapacity(name, config)
    checkKeepExpired(name, config.keepExpired)
    // A user index named like the generation index would make the store pass for one that keeps
    // its values in generations (`hasGenerations`), and a purge delete values still referred to.
    const own = [EXPIRY_INDEX, TS_INDEX, GEN_INDEX].find((index) => config.indexes && index in config.indexes)
    if (own) throw refuse('INVALID_OPTION', 'ownIndex', name, own)
  }
  return stores as StoreConfigs
}

/**
 * After opening: every declared store must exist with its declared indexes and its key path, and
 * with its expiry index (and `$ts`, with a capacity).
 * @throws TtlError `SCHEMA_MISMATCH`
 */
export function checkSchema(db: IDBDatabase, stores: StoreConfigs, kept?: IDBTransaction): void {
  const missing = [META_STORE, ...Object.keys(stores)].filter((name) => !db.objectStoreNames.contains(name))
  if (missing.length === 0) {
    const tx = kept ?? db.transaction(Object.keys(stores).length ? Object.keys(stores) : [META_STORE])
    try {
      for (const [name, config] of Object.entries(stores)) {
        const store = tx.objectStore(name)
        checkKeyShape(db.name, store, config)
        if (!store.indexNames.contains(EXPIRY_INDEX)) missing.push(name)
        if (capacityOf(config) && !store.indexNames.contains(TS_INDEX)) missing.push(`${name} (its capacity needs an index over _ts)`)
        for (const index of Object.keys(config.indexes ?? {})) if (!store.indexNames.contains(index)) missing.push(`index "${index}" of store "${name}"`)
      }
    } finally {
      if (tx !== kept) abortQuietly(tx)
    }
    if (Object.values(stores).some((config) => config.mirror) && !db.objectStoreNames.contains(OUTBOX_STORE)) missing.push(`the mirror's (${OUTBOX_STORE}, ${SYNC_STORE})`)
    if (missing.length === 0) return
  }
  throw new TtlError(
    'SCHEMA_MISMATCH',
    `database "${db.name}" version ${db.version} lacks TTL stores or indexes for ${missing.join(', ')}: ` +
      `open it with a higher version (${db.version + 1}) to create them`,
  )
}

/**
 * A store's key path and key generator are fixed when IndexedDB creates it: a declaration that
 * differs would be ignored and its writes fail later with a `DataError`, so it is refused here, in
 * the upgrade (which then changes nothing) or at an open without one.
 * @throws TtlError `SCHEMA_MISMATCH` naming the store, the key path on disk and the declared one
 */
export function checkKeyShape(database: string, store: IDBObjectStore, config: StoreConfig): void {
  // A compound key path is an array, or a DOMStringList in older engines.
  const shape = (keyPath: string | Iterable<string> | null | undefined, autoIncrement: boolean | undefined) =>
    `keyPath ${JSON.stringify(typeof keyPath === 'string' || !keyPath ? (keyPath ?? null) : [...keyPath])}${autoIncrement ? ' with autoIncrement' : ''}`
  const onDisk = shape(store.keyPath, store.autoIncrement)
  const declared = shape(config.keyPath, config.autoIncrement)
  if (onDisk === declared) return
  throw new TtlError(
    'SCHEMA_MISMATCH',
    `store "${store.name}" of database "${database}" has ${onDisk}, declared with ${declared}: ` +
      'IndexedDB cannot change the key of a store that exists, at any version. Declare it as it is on disk, ' +
      'or declare a store of another name (created with the new key) and copy the items into it.',
  )
}

/**
 * `state` with `capacity`, `mirror` and `keepExpired` as given (absent when none, or `false`). A
 * store that gains a grace at `nowMs` counts what is dead then as expired then (`rules/grace.ts`).
 */
export function withKept(state: StoreState, capacity: Capacity | undefined, mirror: boolean, keepExpired: number | undefined, nowMs?: number): StoreState {
  const next = { ...state }
  if (capacity) next.capacity = capacity
  else delete next.capacity
  if (mirror) next.mirror = true
  else delete next.mirror
  if (keepExpired === undefined) {
    delete next.keepExpired
    delete next.changedAt
  } else {
    if (next.keepExpired === undefined && nowMs !== undefined) next.changedAt = nowMs
    next.keepExpired = keepExpired
  }
  return next
}

/**
 * The settings a store should have now, when its declaration differs from the one last applied;
 * what the entry cannot declare (`undeclarable`) stays as `stored` has it.
 */
function redeclared(config: StoreConfig, stored: StoreState | undefined, nowMs: number, undeclarable: Undeclarable): StoreState | undefined {
  const declared = config.defaultTtl ?? null
  const state = stored ?? initialState(declared)
  const capacity = undeclarable.includes('capacity') ? state.capacity : capacityOf(config)
  const mirror = undeclarable.includes('mirror') ? state.mirror === true : config.mirror === true
  const changedDefault = stored === undefined || state.declared !== declared
  const graceSame = state.keepExpired === config.keepExpired
  if (!changedDefault && sameCapacity(state.capacity, capacity) && (state.mirror === true) === mirror && graceSame) return undefined
  const kept = withKept(state, capacity, mirror, config.keepExpired, stored && nowMs)
  return changedDefault ? { ...changeDefault(kept, declared, nowMs), declared } : kept
}

/**
 * Applies every declared `defaultTtl`, capacity, `mirror` and `keepExpired` that differs from the one last
 * declared (but those the entry cannot declare, `undeclarable`), and
 * resolves to the stores whose settings it changed (not a store declared for the first time):
 * their live queries and the purger are to be told, as after `setDefaultTtl`. The settings are read in a read-only transaction first: at most
 * opens nothing changed, and a read-write one would cost about as much again as the open itself.
 * `settings` gives the settings store that read uses (the open's own check of the schema may
 * hand its transaction on: `assembly/open.ts`).
 */
export async function applyDeclaredDefaults(
  db: IDBDatabase,
  connect: () => Promise<IDBDatabase>,
  stores: StoreConfigs,
  nowMs: number,
  durability: IDBTransactionDurability | undefined,
  undeclarable: Undeclarable,
  settings: () => IDBObjectStore = () => db.transaction(META_STORE).objectStore(META_STORE),
): Promise<string[]> {
  const names = Object.keys(stores)
  const read = (meta: IDBObjectStore) => Promise.all(names.map((name) => req<StoreState | undefined>(meta.get(name))))
  const stored = await read(settings())
  names.forEach((name, i) => learn(db.name, name, stored[i]))
  if (names.every((name, i) => !redeclared(stores[name], stored[i], nowMs, undeclarable))) return []
  const changed = new Map<string, StoreState>()
  // A store's first settings change nothing anyone reads: no live query or purge knows the store yet.
  const news: string[] = []
  await changingSettings(db.name, async () => {
    // Asked for again: an upgrade elsewhere may have closed the connection since the read.
    const tx = (await connect()).transaction(META_STORE, 'readwrite', { durability })
    const meta = tx.objectStore(META_STORE)
    const committed = done(tx)
    const states = await read(meta)
    names.forEach((name, i) => {
      learn(db.name, name, states[i])
      const next = redeclared(stores[name], states[i], nowMs, undeclarable)
      if (next) {
        changed.set(name, next)
        meta.put(next, name)
        if (states[i] !== undefined) news.push(name)
      }
    })
    await committed
  })
  for (const [name, state] of changed) announce(db.name, name, state)
  return news
}
