/**
 * The database layout: the declaration checked, a database opened without an upgrade checked
 * against it, and whether the settings last applied are as declared. The checks of options beyond
 * a store's key and default (`options.ts`) load with an open given one; creating stores, expiry
 * indexes and the metadata store in an upgrade (`upgrade.ts`), and applying a changed declaration
 * (`redeclare.ts`), with an open that needs them (`connection.ts`, `assembly/open.ts`).
 */
import { refuse } from '../rules/refusal.js'
import { JOURNAL_STORE, META_STORE, EXPIRY_INDEX } from './expiry-index.js'
import { noteGenerations } from './generation-index.js'
import type { StoreState } from '../rules/policy.js'
import { capacityOf, sameCapacity } from '../rules/capacity.js'
import { abortQuietly, req } from '../platform/request.js'
import { normalizeTtl } from '../rules/ttl.js'
import { unknownIn } from '../rules/open-options.js'
import { settingsRead, type SettingsTicket } from './held-settings.js'
import { OUTBOX_STORE, SYNC_STORE } from './sync-stores.js'
import type { OpenTtlCoreDBOptions, PurgeOptions, StoreConfig } from '../rules/types.js'

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
 * @param known the options an object of this `kind` takes (`rules/known-options.ts`, `open-options.ts`)
 * @throws TtlError `INVALID_OPTION` naming the unknown option and the closest known one (`refuse`d)
 */
export function refuseUnknown(where: string, options: object, known: readonly string[]): void {
  const name = unknownIn(options, known)
  if (name !== undefined) throw refuse('INVALID_OPTION', 'unknownOption', where, name, known)
}

/**
 * The checks of options beyond a store's key and default, and of the purge's (`options.ts`), as an
 * open given one loads them.
 */
export interface OptionChecks {
  /** Refuses a store's option of a name no store takes, the first check of its options. */
  refuseUnknownStoreOption(where: string, config: StoreConfig): void
  /** Checks a store's options beyond its key and default, once those passed. */
  checkStoreOptions(name: string, config: StoreConfig, where: string): void
  /** What `store` lacks for its declared capacity and indexes, as {@link checkSchema} names it. */
  lacks(name: string, config: StoreConfig, store: IDBObjectStore): string[]
  checkPurgeOptions(options: PurgeOptions): Required<PurgeOptions>
}

/** The store options an open checks without {@link OptionChecks}. */
const BASIC: readonly string[] = ['keyPath', 'autoIncrement', 'defaultTtl']

/**
 * Whether `options` (an object) give an option whose check is in {@link OptionChecks}: `purge`, or
 * a store's beyond its key and default, known or not (the list of known ones comes with the checks).
 */
export function givesMore(options: OpenTtlCoreDBOptions): boolean {
  const { stores } = options
  const more = (config: unknown) => isOptions(config) && unknownIn(config, BASIC) !== undefined
  return options.purge !== undefined || (isOptions(stores) && Object.values(stores).some(more))
}

/**
 * Validates the `stores` option: names, defaults, and no clash with the library's own names; the
 * other options of a store with `more`, which an open that declares one loads ({@link givesMore}).
 * @throws TtlError `INVALID_OPTION` (`refuse`d: an open explains it), `INVALID_TTL`
 */
export function checkStoreConfigs(stores: unknown, more?: OptionChecks): StoreConfigs {
  if (!isOptions(stores)) throw refuse('INVALID_OPTION', 'stores')
  for (const [name, config] of Object.entries(stores as StoreConfigs)) {
    const where = `store "${name}"`
    if ([META_STORE, JOURNAL_STORE, OUTBOX_STORE, SYNC_STORE].includes(name)) throw refuse('INVALID_OPTION', 'ownStore', name)
    if (!isOptions(config)) throw refuse('INVALID_OPTION', 'storeObject', name)
    // Without `more`, no store has an option beyond its key and default ({@link givesMore}): none unknown.
    more?.refuseUnknownStoreOption(where, config)
    if (normalizeTtl(config.defaultTtl, false) === undefined) throw refuse('INVALID_TTL', 'defaultTtl', where, config.defaultTtl)
    more?.checkStoreOptions(name, config, where)
  }
  return stores as StoreConfigs
}

/**
 * After opening: every declared store must exist with its key path and its expiry index, and with
 * its declared indexes (and `$ts`, with a capacity), which `more` checks where they are declared.
 * @throws TtlError `SCHEMA_MISMATCH` (`refuse`d: the connection explains it)
 */
export function checkSchema(db: IDBDatabase, stores: StoreConfigs, kept?: IDBTransaction, more?: OptionChecks): void {
  const missing = [META_STORE, ...Object.keys(stores)].filter((name) => !db.objectStoreNames.contains(name))
  if (missing.length === 0) {
    const tx = kept ?? db.transaction(Object.keys(stores).length ? Object.keys(stores) : [META_STORE])
    try {
      for (const [name, config] of Object.entries(stores)) {
        const store = tx.objectStore(name)
        checkKeyShape(db.name, store, config)
        noteGenerations(db, store)
        if (!store.indexNames.contains(EXPIRY_INDEX)) missing.push(name)
        if (more) missing.push(...more.lacks(name, config, store))
      }
    } finally {
      if (tx !== kept) abortQuietly(tx)
    }
    if (Object.values(stores).some((config) => config.mirror) && !db.objectStoreNames.contains(OUTBOX_STORE)) missing.push(`the mirror's (${OUTBOX_STORE}, ${SYNC_STORE})`)
    if (missing.length === 0) return
  }
  throw refuse('SCHEMA_MISMATCH', 'lacks', db.name, db.version, missing)
}

/**
 * A store's key path and key generator are fixed when IndexedDB creates it: a declaration that
 * differs would be ignored and its writes fail later with a `DataError`, so it is refused here, in
 * the upgrade (which then changes nothing) or at an open without one.
 * @throws TtlError `SCHEMA_MISMATCH` naming the store, the key path on disk and the declared one (`refuse`d: the connection explains it)
 */
export function checkKeyShape(database: string, store: IDBObjectStore, config: StoreConfig): void {
  // A compound key path is an array, or a DOMStringList in older engines.
  const shape = (keyPath: string | Iterable<string> | null | undefined, autoIncrement: boolean | undefined) =>
    `keyPath ${JSON.stringify(typeof keyPath === 'string' || !keyPath ? (keyPath ?? null) : [...keyPath])}${autoIncrement ? ' with autoIncrement' : ''}`
  const onDisk = shape(store.keyPath, store.autoIncrement)
  const declared = shape(config.keyPath, config.autoIncrement)
  if (onDisk === declared) return
  throw refuse('SCHEMA_MISMATCH', 'keyShape', store.name, database, onDisk, declared)
}

/**
 * The settings of `stores` as last applied, read from `meta` (the settings store of a read-only
 * transaction: at most opens nothing changed), their watermarks learnt by the realm, which keeps
 * them as its copies when it held them from before that transaction (`ticket`): the first calls
 * then read no settings.
 */
export async function readDeclared(db: IDBDatabase, stores: StoreConfigs, meta: IDBObjectStore, ticket: SettingsTicket | undefined): Promise<(StoreState | undefined)[]> {
  const names = Object.keys(stores)
  const stored = await Promise.all(names.map((name) => req<StoreState | undefined>(meta.get(name))))
  names.forEach((name, i) => settingsRead(db.name, ticket, name, stored[i]))
  return stored
}

/**
 * Whether the settings `stored` are those `config` declares (`defaultTtl`, capacity, `mirror`,
 * `keepExpired`), those the entry cannot declare (`undeclarable`) aside: else the open applies the
 * declaration (`redeclare.ts`, loaded then).
 */
export function asDeclared(config: StoreConfig, stored: StoreState | undefined, undeclarable: Undeclarable): boolean {
  if (stored?.declared !== (config.defaultTtl ?? null) || stored.keepExpired !== config.keepExpired) return false
  const capacity = undeclarable.includes('capacity') || sameCapacity(stored.capacity, capacityOf(config))
  return capacity && (undeclarable.includes('mirror') || (stored.mirror === true) === (config.mirror === true))
}
