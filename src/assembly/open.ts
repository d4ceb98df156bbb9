/**
 * What `openTtlDB` does, in every entry: checks the options, opens (creating or upgrading) the
 * database, writes the declared defaults (telling live queries and the purger, in every tab, when
 * that changed one), and has the entry assemble its handle. The entries differ in the handle
 * (`open-full.ts`: {@link TtlDB}; `open-core.ts`: `TtlCoreDB`), in what the app's `upgrade` is
 * given (the native database here, as `idb-ttl/core` gives it; idb's views of it through
 * `open-full.ts`) and in how the background purge starts its worker (`open-page.ts`,
 * `open-inline.ts`). It carries no idb, which only the full entries load.
 */
import type { DBSchema } from 'idb'
import type { PartsOptions } from '../handle/core-parts.js'
import type { LoadStorage, RoutesOptions } from '../handle/core-routes.js'
import type { LoadRelief } from '../purge/quota.js'
import { Connection, type UpgradeWork } from '../layout/connection.js'
import { asDeclared, checkSchema, checkStoreConfigs, givesMore, isOptions, readDeclared, refuseUnknown, type OptionChecks, type StoreConfigs, type Undeclarable } from '../layout/schema.js'
import { forgetSettings, holdSettings, settingsTicket, type LoadLocks, type SettingsTicket } from '../layout/held-settings.js'
import { META_STORE } from '../layout/expiry-index.js'
import { requireIndexedDB } from '../platform/available.js'
import { OPEN_OPTIONS } from '../rules/open-options.js'
import { abortQuietly } from '../platform/request.js'
import { place } from '../platform/factory.js'
import { checkClock, monotonic } from '../rules/clock.js'
import { explain, refuse, type LoadTexts } from '../rules/refusal.js'
import { purgeDefaults } from '../rules/purge-options.js'
import type { OpenTtlCoreDBOptions, PurgeOptions } from '../rules/types.js'

/** An open database, checked and with its declared defaults written: what an entry makes its handle of. */
export interface Opened extends Omit<PartsOptions, 'background' | 'reports' | 'notices'>, Omit<RoutesOptions, 'parts' | 'generations'> {
  /** Stops following the database's watermarks: the handle's `close` calls it. */
  unfollow: () => void
  /** The stores whose default this open changed, which the handle's routes announce (`settingsChanged`). */
  redeclared: string[]
}

/**
 * The schema work of an open that creates or upgrades the database, or applies a changed
 * declaration (`layout/upgrade.ts`), as an entry gets it: the page entries load it with `import()`
 * when an open first needs it, so that opening a database as declared loads none of it;
 * `idb-ttl/service-worker` imports it.
 */
export type LoadUpgrade = () => Promise<UpgradeWork>

/**
 * What an entry hands in: the schema work, the checks of the options beyond a store's key and
 * default and of the purge's, and what Storage Buckets, `onLost` and `db.storage()` run (`handle/storage-work.ts`).
 */
export interface Loaders {
  upgrade: LoadUpgrade
  /** The checks of the options beyond a store's key and default, and of the purge's (`layout/options.ts`), loaded by an open given one. */
  options: () => Promise<OptionChecks>
  storage: LoadStorage
  /** The steps of quota relief (`purge/relieve.ts`; the full entries': `purge/relief.ts`), loaded at the first write refused for lack of space. */
  relief: LoadRelief
  /** The words of the refusals an open's checks make (`rules/texts.ts`), loaded at the first. */
  texts: LoadTexts
  /** What the handle's less common calls run (`calls.ts`), loaded at the first of them. */
  calls: RoutesOptions['loadCalls']
  /** What holds the settings lock (`platform/lock.ts`), loaded as the open starts (`layout/held-settings.ts`). */
  locks: LoadLocks
}

/**
 * Opens `name` as {@link openTtlDB} does, running the app's `upgrade` as it is given (the full
 * entries hand in one that takes idb's views), with the schema work and the storage work `load` brings (the latter only when `bucket` is given); `beforeOpen` runs once the checks passed, before the
 * database is touched: it throws for declarations the entry cannot honour, or waits for what they need, `assemble` makes the handle. The settings the entry
 * cannot declare (`undeclarable`) are left as the database has them.
 */
export function openDatabase<S extends DBSchema | unknown, H>(
  name: string,
  options: OpenTtlCoreDBOptions<S>,
  load: Loaders,
  assemble: (opened: Opened) => H,
  beforeOpen?: (stores: StoreConfigs, purge: Required<PurgeOptions>) => void | Promise<void>,
  undeclarable?: Undeclarable,
): Promise<H> {
  // A refusal of the checks gets its words before the open rejects (`rules/refusal.ts`).
  return openChecked(name, options, load, assemble, beforeOpen, undeclarable).catch((error: unknown) => explain(error, load.texts))
}

async function openChecked<S extends DBSchema | unknown, H>(
  name: string,
  options: OpenTtlCoreDBOptions<S>,
  load: Loaders,
  assemble: (opened: Opened) => H,
  beforeOpen: (stores: StoreConfigs, purge: Required<PurgeOptions>) => void | Promise<void> = () => {},
  undeclarable: Undeclarable = [],
): Promise<H> {
  requireIndexedDB('openTtlDB', name)
  if (!isOptions(options)) throw refuse('INVALID_OPTION', 'options')
  refuseUnknown('openTtlDB', options, OPEN_OPTIONS)
  if (options.upgrade !== undefined && typeof options.upgrade !== 'function') throw refuse('INVALID_OPTION', 'upgrade', options.upgrade)
  // Options beyond a store's key and default load their checks (issue #44), before any is checked: the first refused is as before.
  const more = givesMore(options) ? await load.options() : undefined
  const stores = checkStoreConfigs(options.stores, more)
  const mode = options.ttlValues ?? 'strict'
  if (mode !== 'strict' && mode !== 'lenient') throw refuse('INVALID_OPTION', 'ttlValues', mode)
  const { durability } = options
  if (durability !== undefined && durability !== 'default' && durability !== 'strict' && durability !== 'relaxed') throw refuse('INVALID_OPTION', 'durability', durability)
  const purge = options.purge === undefined ? purgeDefaults() : more!.checkPurgeOptions(options.purge)
  // A database opened without a bucket waits on no import (issue #44).
  const storage = options.bucket === undefined ? undefined : await load.storage()
  const bucket = storage?.checkBucketOptions(options.bucket)
  await beforeOpen(stores, purge)
  const clock = monotonic(checkClock(options.clock))
  if (storage) await storage.openIn(name, bucket)
  else place(name, undefined)
  const first = firstCheck(more)
  const connection = new Connection({ name, version: options.version, stores, clock, upgrade: options.upgrade, schema: { checkSchema: first.check, upgrade: load.upgrade, texts: load.texts }, onStepAside: () => forgetSettings(name) })
  const opening = connection.native()
  // Joined while the open is under way: the bus's channel costs 0.2–0.4 ms to make, hidden there.
  const unfollow = holdSettings(name, load.locks)
  try {
    const db = await opening
    const nowMs = clock()
    const stored = await readDeclared(db, stores, ...first.settings(db))
    const same = Object.values(stores).every((config, i) => asDeclared(config, stored[i], undeclarable))
    // A declaration that changed is applied by the schema work, loaded then.
    const redeclared = same ? [] : await (await load.upgrade()).applyDeclaredDefaults(db, () => connection.native(), stores, nowMs, options.durability, undeclarable)
    return assemble({ name, stores, purge, clock, connection, mode, durability: options.durability, unfollow, redeclared, loadStorage: load.storage, loadRelief: load.relief, loadCalls: load.calls, texts: load.texts })
  } catch (error) {
    // Nothing holds the connection, the bus or the settings lock for a handle that was never made.
    unfollow()
    connection.close()
    throw error
  }
}

/**
 * The schema check of an open's first connection, in a read-only transaction over the declared
 * stores and the settings store, which the read of the declared defaults then uses
 * ({@link settings}): one transaction where there were two (the check's, aborted, then the
 * read's, which in WebKit waited about 0.3 ms behind the aborted one). Both run in the task the
 * open succeeded in, so the transaction still takes requests. Later checks (reopens after an
 * upgrade elsewhere) are `checkSchema`'s own; all check what `more` declares (indexes, a capacity).
 */
function firstCheck(more: OptionChecks | undefined) {
  let kept: IDBTransaction | undefined
  let ticket: SettingsTicket | undefined
  let first = true
  return {
    check(db: IDBDatabase, stores: StoreConfigs): void {
      const names = [META_STORE, ...Object.keys(stores)]
      let tx: IDBTransaction | undefined
      if (first && names.every((store) => db.objectStoreNames.contains(store))) {
        // Taken before the transaction opens: what it reads of the settings is kept only if they were held from before.
        ticket = settingsTicket(db.name)
        tx = db.transaction(names)
      }
      first = false
      try {
        checkSchema(db, stores, tx, more)
      } catch (error) {
        if (tx) abortQuietly(tx)
        throw error
      }
      kept = tx
    },
    /** The settings store of the first check's transaction, once, else of a transaction of its own; with the ticket taken before it. */
    settings(db: IDBDatabase): [IDBObjectStore, SettingsTicket | undefined] {
      const tx = kept
      kept = undefined
      if (tx?.db !== db) ticket = settingsTicket(db.name)
      return [(tx?.db === db ? tx : db.transaction(META_STORE)).objectStore(META_STORE), ticket]
    },
  }
}
