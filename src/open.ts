/**
 * What `openTtlDB` does, in every entry: checks the options, opens (creating or upgrading) the
 * database, writes the declared defaults (telling live queries and the purger, in every tab, when
 * that changed one), and assembles the handle. The entries differ only in how the background
 * purge starts its worker (`open-page.ts`, `open-inline.ts`).
 */
import type { DBSchema, IDBPDatabase } from 'idb'
import { TtlDB } from './db.js'
import { Parts } from './handle/parts.js'
import { Routes } from './handle/routes.js'
import { Connection } from './layout/connection.js'
import { applyDeclaredDefaults, checkStoreConfigs } from './layout/schema.js'
import { follow } from './layout/watermarks.js'
import { requireIndexedDB } from './platform/available.js'
import { monotonic } from './rules/clock.js'
import { TtlError } from './rules/errors.js'
import { checkPurgeOptions } from './rules/purge-options.js'
import { checkKnownOptions } from './rules/known-options.js'
import type { OpenTtlDBOptions } from './rules/types.js'
import type { StartWorker } from './background/background.js'

/** Opens `name` as {@link openTtlDB} does, its worker mode's purge started by `startWorker` (absent: inline). */
export async function openDatabase<S extends DBSchema | unknown = unknown>(name: string, options: OpenTtlDBOptions<S>, startWorker: StartWorker | undefined): Promise<TtlDB<S>> {
  requireIndexedDB(`openTtlDB(${JSON.stringify(name)})`)
  if (options === null || typeof options !== 'object') throw new TtlError('INVALID_OPTION', 'openTtlDB needs an options object: { version, stores }')
  checkKnownOptions('openTtlDB', options, 'openTtlDB')
  const stores = checkStoreConfigs(options.stores)
  const mode = options.ttlValues ?? 'strict'
  if (mode !== 'strict' && mode !== 'lenient') {
    throw new TtlError('INVALID_OPTION', `ttlValues must be 'strict' or 'lenient'; got ${String(mode)}`)
  }
  const purge = checkPurgeOptions(options.purge)
  const clock = monotonic(options.clock ?? Date.now)
  const upgrade = options.upgrade as (raw: IDBPDatabase<any>, o: number, n: number | null) => void
  const connection = new Connection({ name, version: options.version, stores, clock, upgrade })
  const db = await connection.native()
  const unfollow = follow(name)
  let redeclared: string[]
  try {
    redeclared = await applyDeclaredDefaults(db, () => connection.native(), stores, clock(), options.durability)
  } catch (error) {
    unfollow()
    connection.close()
    throw error
  }
  const parts = new Parts({ name, stores, purge, clock, connection, startWorker })
  const routes = new Routes({ name, connection, stores, clock, mode, durability: options.durability, parts })
  routes.settingsChanged(redeclared)
  return new TtlDB<S>(routes, unfollow)
}
