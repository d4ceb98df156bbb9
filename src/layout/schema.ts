/**
 * The database layout: creating stores, expiry indexes and the metadata store in an upgrade,
 * checking a database opened without one, and applying changed `defaultTtl` declarations.
 */
import { capacityOf, checkCapacity, sameCapacity, TS_INDEX, type Capacity } from '../rules/capacity.js'
import { formatKey, TtlError } from '../rules/errors.js'
import { allDeadRanges, EXPIRY_INDEX, JOURNAL_STORE, MARK_FIELD, META_STORE } from './expiry-index.js'
import { GEN_INDEX, GEN_KEY_PATH, keepsGenerations } from './generation-index.js'
import { changeDefault, cutoffs, initialState, type StoreState } from '../rules/policy.js'
import { abortQuietly, done, req } from '../platform/request.js'
import { check, isPlainObject, stampAt } from './stamp.js'
import { checkDefaultTtl } from '../rules/ttl.js'
import { checkKnownOptions } from '../rules/known-options.js'
import { checkKeepExpired } from '../rules/grace.js'
import { announce, learn } from './watermarks.js'
import { changingSettings } from './held-settings.js'
import { createSyncStores, OUTBOX_STORE, SYNC_STORE } from './sync-stores.js'
import type { StoreConfig } from '../rules/types.js'

export type StoreConfigs = Record<string, StoreConfig>

/**
 * The settings an entry's declarations cannot carry (`idb-ttl/core`: a capacity, `mirror`), which
 * its open leaves as the database has them: another handle declared them, and keeps honouring them.
 */
export type Undeclarable = readonly ('capacity' | 'mirror')[]

/** Validates the `stores` option: names, defaults, and no clash with the library's own names. */
export function checkStoreConfigs(stores: unknown): StoreConfigs {
  if (stores === null || typeof stores !== 'object') {
    throw new TtlError('INVALID_OPTION', 'openTtlDB needs a `stores` object: { storeName: { keyPath, defaultTtl } }')
  }
  for (const [name, config] of Object.entries(stores as StoreConfigs)) {
    if ([META_STORE, JOURNAL_STORE, OUTBOX_STORE, SYNC_STORE].includes(name)) throw new TtlError('INVALID_OPTION', `"${name}" is the library's own store name`)
    if (config === null || typeof config !== 'object') {
      throw new TtlError('INVALID_OPTION', `store "${name}" needs an options object`)
    }
    checkKnownOptions(`store "${name}"`, config, 'store')
    checkDefaultTtl(config.defaultTtl, `store "${name}"`)
    for (const [indexName, index] of Object.entries(config.indexes ?? {})) {
      if (index === null || typeof index !== 'object') throw new TtlError('INVALID_OPTION', `index "${indexName}" of store "${name}" needs an options object`)
      checkKnownOptions(`index "${indexName}" of store "${name}"`, index, 'index')
    }
    for (const option of ['keepTs', 'mirror', 'touchOnRead'] as const) {
      if (config[option] !== undefined && typeof config[option] !== 'boolean') {
        throw new TtlError('INVALID_OPTION', `store "${name}": ${option} must be true or false; got ${String(config[option])}`)
      }
    }
    if (config.touchOnRead && (config.keyPath === undefined || config.keyPath === null)) {
      throw new TtlError('INVALID_OPTION', `store "${name}": touchOnRead needs an in-line keyPath (reads find a touched item by its key)`)
    }
    if (config.mirror && (config.keyPath !== 'id' || config.autoIncrement || config.evictOnQuota)) {
      throw new TtlError('INVALID_OPTION', `store "${name}": mirror needs keyPath: 'id' (the item's Cosmos DB id), without autoIncrement or evictOnQuota`)
    }
    checkCapacity(name, config)
    checkKeepExpired(name, config.keepExpired)
    // A user index named like the generation index would make the store pass for one that keeps
    // its values in generations (`hasGenerations`), and a purge delete values still referred to.
    for (const own of [EXPIRY_INDEX, TS_INDEX, GEN_INDEX]) {
      if (config.indexes && own in config.indexes) {
        throw new TtlError('INVALID_OPTION', `store "${name}": "${own}" is the library's own index name`)
      }
    }
  }
  return stores as StoreConfigs
}

/** The declared unique indexes an upgrade will create, as messages name them. */
export function addedUniqueIndexes(db: IDBDatabase, tx: IDBTransaction, stores: StoreConfigs): string[] {
  return Object.entries(stores).flatMap(([name, config]) => {
    const existing = db.objectStoreNames.contains(name) ? tx.objectStore(name).indexNames : undefined
    return Object.entries(config.indexes ?? {})
      .filter(([indexName, index]) => index.unique && !existing?.contains(indexName))
      .map(([indexName]) => `unique index "${indexName}" of store "${name}"`)
  })
}

/**
 * Why an open failed, in words that name the database: a version below the one on disk (a newer
 * app version upgraded it), or, when IndexedDB aborted an upgrade, a new unique index over live
 * duplicates (the dead ones were deleted first), the one such failure the schema work can meet.
 * The error keeps IndexedDB's name, so code that tests `error.name` still works.
 */
export function explainAbort(error: unknown, tx: IDBTransaction | undefined, unique: string[], name: string, version: number | undefined): unknown {
  if ((error as DOMException | null)?.name === 'VersionError') {
    const asked = `openTtlDB(${JSON.stringify(name)}, { version: ${version} })`
    return new DOMException(`${asked}: the database on disk has a higher version, from a newer version of the app; open it with that version or higher (${(error as Error).message})`, 'VersionError')
  }
  const cause = tx?.error
  if (cause?.name !== 'ConstraintError' || unique.length === 0) return error
  return new DOMException(`the upgrade could not create ${unique.join(', ')}: live items share a value (${cause.message})`, 'ConstraintError')
}

/**
 * Inside `upgradeneeded`: create what is missing, never delete a store or an index. Runs as a
 * chain of requests in the upgrade transaction; a rejection means the upgrade must be aborted.
 */
export async function upgradeSchema(db: IDBDatabase, tx: IDBTransaction, stores: StoreConfigs, nowMs: number): Promise<void> {
  const meta = db.objectStoreNames.contains(META_STORE) ? tx.objectStore(META_STORE) : db.createObjectStore(META_STORE)
  if (!db.objectStoreNames.contains(JOURNAL_STORE)) db.createObjectStore(JOURNAL_STORE)
  if (Object.values(stores).some(mirrors)) createSyncStores(db)
  for (const [name, config] of Object.entries(stores)) {
    const created = !db.objectStoreNames.contains(name)
    const store = created
      ? db.createObjectStore(name, { keyPath: config.keyPath ?? null, autoIncrement: config.autoIncrement ?? false })
      : tx.objectStore(name)
    checkKeyShape(db.name, store, config)
    if (!store.indexNames.contains(EXPIRY_INDEX)) {
      store.createIndex(EXPIRY_INDEX, MARK_FIELD)
      await stampExisting(store, nowMs)
    }
    if (capacityOf(config) && !store.indexNames.contains(TS_INDEX)) store.createIndex(TS_INDEX, '_ts')
    if (keepsGenerations(config) && !store.indexNames.contains(GEN_INDEX)) store.createIndex(GEN_INDEX, GEN_KEY_PATH)
    // A store created now starts from its declaration, whatever settings a store of its name left
    // behind (deleted by an upgrade callback, which cannot reach the metadata store).
    const state = created ? undefined : await req<StoreState | undefined>(meta.get(name))
    const added = Object.entries(config.indexes ?? {}).filter(([indexName]) => !store.indexNames.contains(indexName))
    // A dead item occupies nothing: it must not make a new unique index fail.
    if (state && added.some(([, index]) => index.unique)) await deleteDead(store, state, nowMs)
    for (const [indexName, index] of added) {
      store.createIndex(indexName, index.keyPath, { unique: index.unique, multiEntry: index.multiEntry })
    }
    // With its capacity: a store's first settings, complete, leave the open nothing to announce.
    if (state === undefined) meta.put(firstState(config), name)
  }
}

/**
 * Items already in a store that gains TTL (made by plain idb, say) are stamped with `_ts` = now:
 * their countdown starts when TTL is added. Their `ttl` is read leniently (existing data cannot
 * be rejected), and any `_ts` or `$ttl` they carried is replaced. Values that are not plain
 * objects cannot carry `_ts`: rather than keep them as items that never expire, the upgrade is
 * refused with nothing changed.
 * @throws TtlError `INVALID_VALUE` naming the store, how many values, and the first one's key
 */
async function stampExisting(store: IDBObjectStore, nowMs: number): Promise<void> {
  let refused = 0
  let first: IDBValidKey | undefined
  const request = store.openCursor()
  for (let cursor = await req(request); cursor; cursor = await req(request)) {
    if (isPlainObject(cursor.value)) cursor.update(stampAt(check(cursor.value, 'lenient', ''), nowMs))
    else if (refused++ === 0) first = cursor.primaryKey
    cursor.continue()
  }
  if (refused > 0) {
    throw new TtlError(
      'INVALID_VALUE',
      `store "${store.name}" holds ${refused} value${refused === 1 ? '' : 's'} that ${refused === 1 ? 'is' : 'are'} not plain objects ` +
        `(the first at key ${formatKey(first)}): TTL stores hold plain objects only, so the upgrade was abandoned and nothing changed. ` +
        'Convert or delete those values (with plain idb), then open again.',
    )
  }
}

/** Deletes the items of `store` that are dead at `nowMs` under `state`. */
async function deleteDead(store: IDBObjectStore, state: StoreState, nowMs: number): Promise<void> {
  const index = store.index(EXPIRY_INDEX)
  const lists = await Promise.all(allDeadRanges(cutoffs(state, nowMs)).map((range) => req(index.getAllKeys(range))))
  for (const key of lists.flat()) store.delete(key)
}

/**
 * After opening: every declared store must exist with its declared indexes and its key path, and
 * with its expiry index (and `$ts`, with a capacity).
 * @throws TtlError `SCHEMA_MISMATCH`
 */
export function checkSchema(db: IDBDatabase, stores: StoreConfigs): void {
  const missing = [META_STORE, ...Object.keys(stores)].filter((name) => !db.objectStoreNames.contains(name))
  if (missing.length === 0) {
    const tx = db.transaction(Object.keys(stores).length ? Object.keys(stores) : [META_STORE])
    try {
      for (const [name, config] of Object.entries(stores)) {
        const store = tx.objectStore(name)
        checkKeyShape(db.name, store, config)
        if (!store.indexNames.contains(EXPIRY_INDEX)) missing.push(name)
        if (capacityOf(config) && !store.indexNames.contains(TS_INDEX)) missing.push(`${name} (its capacity needs an index over _ts)`)
        for (const index of Object.keys(config.indexes ?? {})) if (!store.indexNames.contains(index)) missing.push(`index "${index}" of store "${name}"`)
      }
    } finally {
      abortQuietly(tx)
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
function checkKeyShape(database: string, store: IDBObjectStore, config: StoreConfig): void {
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
 * Whether a store may be mirrored (`idb-ttl/cosmos`): declared so, or a `keepTs` store that
 * `syncCosmos` accepts. A database with none gets no outbox or checkpoint store.
 */
const mirrors = (config: StoreConfig) => config.mirror === true || config.keepTs === true

/** A new store's settings: its declared default, its capacity, whether it is mirrored, its grace. */
function firstState(config: StoreConfig): StoreState {
  return withKept(initialState(config.defaultTtl ?? null), capacityOf(config), config.mirror === true, config.keepExpired)
}

/**
 * `state` with `capacity`, `mirror` and `keepExpired` as given (absent when none, or `false`). A
 * store that gains a grace at `nowMs` counts what is dead then as expired then (`rules/grace.ts`).
 */
function withKept(state: StoreState, capacity: Capacity | undefined, mirror: boolean, keepExpired: number | undefined, nowMs?: number): StoreState {
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
 */
export async function applyDeclaredDefaults(
  db: IDBDatabase,
  connect: () => Promise<IDBDatabase>,
  stores: StoreConfigs,
  nowMs: number,
  durability: IDBTransactionDurability | undefined,
  undeclarable: Undeclarable,
): Promise<string[]> {
  const names = Object.keys(stores)
  const read = (meta: IDBObjectStore) => Promise.all(names.map((name) => req<StoreState | undefined>(meta.get(name))))
  const stored = await read(db.transaction(META_STORE).objectStore(META_STORE))
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
