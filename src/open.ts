/**
 * What `openTtlDB` does, in every entry: checks the options, opens (creating or upgrading) the
 * database, writes the declared defaults (telling live queries and the purger, in every tab, when
 * that changed one), and has the entry assemble its handle. The entries differ in the handle
 * (`open-full.ts`: {@link TtlDB}; `open-core.ts`: `TtlCoreDB`) and in how the background purge
 * starts its worker (`open-page.ts`, `open-inline.ts`).
 */
import { wrap, type DBSchema, type IDBPDatabase } from 'idb'
import type { PartsOptions } from './handle/core-parts.js'
import type { RoutesOptions } from './handle/core-routes.js'
import { Connection } from './layout/connection.js'
import { addedUniqueIndexes, applyDeclaredDefaults, checkSchema, checkStoreConfigs, explainAbort, upgradeSchema, type StoreConfigs } from './layout/schema.js'
import { forgetSettings, holdSettings } from './layout/held-settings.js'
import { follow } from './layout/watermarks.js'
import { requireIndexedDB } from './platform/available.js'
import { monotonic } from './rules/clock.js'
import { TtlError } from './rules/errors.js'
import { checkPurgeOptions } from './rules/purge-options.js'
import { checkKnownOptions } from './rules/known-options.js'
import type { OpenTtlDBOptions, PurgeOptions } from './rules/types.js'

/** An open database, checked and with its declared defaults written: what an entry makes its handle of. */
export interface Opened extends Omit<PartsOptions, 'startWorker' | 'pagePurger'>, Omit<RoutesOptions, 'parts' | 'generations'> {
  /** Stops following the database's watermarks: the handle's `close` calls it. */
  unfollow: () => void
  /** The stores whose default this open changed, which the handle's routes announce (`settingsChanged`). */
  redeclared: string[]
}

/**
 * Opens `name` as {@link openTtlDB} does; `refuse` throws for declarations the entry cannot honour
 * (before the database is touched), `assemble` makes the handle.
 */
export async function openDatabase<S extends DBSchema | unknown, H>(
  name: string,
  options: OpenTtlDBOptions<S>,
  assemble: (opened: Opened) => H,
  refuse: (stores: StoreConfigs, purge: Required<PurgeOptions>) => void = () => {},
): Promise<H> {
  requireIndexedDB(`openTtlDB(${JSON.stringify(name)})`)
  if (options === null || typeof options !== 'object') throw new TtlError('INVALID_OPTION', 'openTtlDB needs an options object: { version, stores }')
  checkKnownOptions('openTtlDB', options, 'openTtlDB')
  const stores = checkStoreConfigs(options.stores)
  const mode = options.ttlValues ?? 'strict'
  if (mode !== 'strict' && mode !== 'lenient') {
    throw new TtlError('INVALID_OPTION', `ttlValues must be 'strict' or 'lenient'; got ${String(mode)}`)
  }
  const purge = checkPurgeOptions(options.purge)
  refuse(stores, purge)
  const clock = monotonic(options.clock ?? Date.now)
  const connection = new Connection({ name, version: options.version, stores, clock, upgrade: idbUpgrade(options.upgrade), schema: { addedUniqueIndexes, upgradeSchema, explainAbort, checkSchema }, onStepAside: () => forgetSettings(name) })
  const db = await connection.native()
  const unfollowMarks = follow(name)
  const letGo = holdSettings(name)
  const unfollow = () => {
    unfollowMarks()
    letGo()
  }
  let redeclared: string[]
  try {
    redeclared = await applyDeclaredDefaults(db, () => connection.native(), stores, clock(), options.durability)
  } catch (error) {
    unfollow()
    connection.close()
    throw error
  }
  return assemble({ name, stores, purge, clock, connection, mode, durability: options.durability, unfollow, redeclared })
}

/**
 * The app's `upgrade` as the connection runs it: given idb's views of the native database and
 * transaction, as idb's `openDB` gives them (the same views `raw` gives later: idb keeps one per
 * native object).
 */
function idbUpgrade(upgrade: ((raw: IDBPDatabase<any>, oldVersion: number, newVersion: number | null) => void) | undefined) {
  if (!upgrade) return undefined
  return (db: IDBDatabase, tx: IDBTransaction, oldVersion: number, newVersion: number | null) => {
    // idb's promise for the transaction (`done`) rejects when the upgrade aborts; the open reports why.
    wrap(tx).done.catch(() => {})
    upgrade(wrap(db), oldVersion, newVersion)
  }
}
