/**
 * The schema work of an open that creates or upgrades the database: creating stores, expiry
 * indexes and the metadata store (never deleting any), stamping the items of a store that gains
 * TTL, and the words for an open that failed; with it, applying a declaration that changed
 * (`redeclare.ts`). Only an open that needs an upgrade or finds settings not as declared runs it:
 * the page entries load it with `import()` then (`assembly/open-page.ts`, `open-core.ts`), so that
 * an open of a database as declared loads none of it; `idb-ttl/service-worker` imports it.
 */
import { capacityOf, TS_INDEX } from '../rules/capacity.js'
import { formatKey, TtlError } from '../rules/errors.js'
import { allDeadRanges, EXPIRY_INDEX, JOURNAL_STORE, MARK_FIELD, META_STORE } from './expiry-index.js'
import { GEN_INDEX, GEN_KEY_PATH } from './generation-index.js'
import { keepsGenerations } from './keeps-generations.js'
import { cutoffs, type StoreState } from '../rules/policy.js'
import { initialState } from '../rules/default-change.js'
import { abortQuietly, req } from '../platform/request.js'
import { factoryOf } from '../platform/factory.js'
import { check, isPlainObject, stampAt } from './stamp.js'
import { checkKeyShape, type StoreConfigs } from './schema.js'
import { withKept } from './redeclare.js'
import { createSyncStores } from './create-sync-stores.js'
import type { StoreConfig } from '../rules/types.js'

export { applyDeclaredDefaults } from './redeclare.js'

/**
 * Whether a store may be mirrored (`idb-ttl/cosmos`): declared so, or a `keepTs` store that
 * `syncCosmos` accepts. A database with none gets no outbox or checkpoint store.
 */
const mirrors = (config: StoreConfig) => config.mirror === true || config.keepTs === true

/** A new store's settings: its declared default, its capacity, whether it is mirrored, its grace. */
function firstState(config: StoreConfig): StoreState {
  return withKept(initialState(config.defaultTtl ?? null), capacityOf(config), config.mirror === true, config.keepExpired)
}

/** What {@link openUpgrading} needs of a connection's options (`connection.ts`). */
interface UpgradingOptions {
  name: string
  version?: number
  stores: StoreConfigs
  clock: () => number
  upgrade?: (db: IDBDatabase, oldVersion: number, newVersion: number | null, tx: IDBTransaction) => void
}

/**
 * Opens the database at its declared version, creating or upgrading it: the schema work, then the
 * app's `upgrade` in the same transaction; a failure of either aborts it, explained. `watch` takes
 * the connection opened; `created` runs when the open creates the database.
 */
export async function openUpgrading({ name, version, stores, clock, upgrade }: UpgradingOptions, watch: (db: IDBDatabase) => IDBDatabase, created: () => void): Promise<IDBDatabase> {
  let failure: { error: unknown } | undefined
  let versionchange: IDBTransaction | undefined
  let unique: string[] = []
  return new Promise<IDBDatabase>((resolve, reject) => {
    const request = factoryOf(name).open(name, version)
    request.onupgradeneeded = (event) => {
      const db = request.result
      const tx = request.transaction!
      if (event.oldVersion === 0) created()
      versionchange = tx
      unique = addedUniqueIndexes(db, tx, stores)
      // The app's callback runs once the library's schema work (a chain of requests) is done.
      upgradeSchema(db, tx, stores, clock())
        .then(() => upgrade?.(db, event.oldVersion, event.newVersion, tx))
        .catch((error: unknown) => {
          failure = { error }
          abortQuietly(tx)
        })
    }
    request.onsuccess = () => resolve(watch(request.result))
    request.onerror = () => reject(request.error)
  }).catch((error: unknown) => {
    throw explainAbort(failure?.error ?? error, versionchange, unique, name, version)
  })
}

/** The declared unique indexes an upgrade will create, as messages name them. */
function addedUniqueIndexes(db: IDBDatabase, tx: IDBTransaction, stores: StoreConfigs): string[] {
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
function explainAbort(error: unknown, tx: IDBTransaction | undefined, unique: string[], name: string, version: number | undefined): unknown {
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
async function upgradeSchema(db: IDBDatabase, tx: IDBTransaction, stores: StoreConfigs, nowMs: number): Promise<void> {
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
