/**
 * `openTtlDB` of `idb-ttl/core`: a handle with the basic calls only ({@link TtlCoreDB}), whose
 * background purge runs in the purge worker alone (no purge on the page), so that an app that
 * only gets and puts loads none of live queries, transactions, events, capacity, quota eviction,
 * sliding expiry or the mirror. It refuses at open a declaration that needs one of them. It
 * carries no idb either: `raw` and the app's `upgrade` are given the native database.
 */
import type { DBSchema } from 'idb'
import { lazyBackground } from '../background/lazy.js'
import { load, once } from '../platform/load.js'
import { TtlCoreDB } from './core-db.js'
import { CoreParts, type Reporting } from '../handle/core-parts.js'
import { lazyNotices } from '../live/lazy-notices.js'
import { CoreOnlyRoutes } from '../handle/core-refusals.js'
import type { StoreConfigs } from '../layout/schema.js'
import { openDatabase } from './open.js'
import { explain, refuse } from '../rules/refusal.js'
import { deletingWith } from '../generations/delete-db.js'
import type { OpenTtlCoreDBOptions, OpenTtlDBOptions, PurgeOptions } from '../rules/types.js'

/** The background, loaded at the first idle callback: the purge worker's start and its client (`background/page.ts`). */
const background = lazyBackground(async () => ({ makeBackground: (await load(import('../background/page.js'))).coreBackground }))

/** The schema work, loaded when an open first needs to create or upgrade the database. */
const loadUpgrade = () => load(import('../layout/upgrade.js'))

/** The checks of the options beyond a store's key and default, and of the purge's: loaded by an open given one. */
const loadOptions = () => load(import('../layout/options.js'))

/** Storage Buckets and `db.storage()`: loaded when an open, a `storage()` or a deletion first needs them. */
const loadStorage = () => load(import('../handle/storage-work.js'))

/** The words of the refusals of the open, the calls and `deleteTtlDB`, with those of what only `idb-ttl` has, loaded at the first (`rules/texts.ts`). */
const loadTexts = once(() => load(import('../rules/full-only-texts.js')))

/** What the handle's less common calls run, loaded at the first (`calls.ts`). */
const loadCalls = once(() => load(import('./calls.js')))

/** What tells live queries of a change (`live/notices.ts`), loaded at a handle's first: a realm of `idb-ttl/core` alone has none to tell. */
const loadNotices = once(async () => (await load(import('../live/notices.js'))).Presence)

/** The purge's reports, which nothing hears: `onPurge` is `idb-ttl`'s. */
const unheard: Reporting = { emit: () => {}, failure: () => {} }

/** Store options `idb-ttl/core` leaves out, each needing the full entry. */
const FULL_ONLY = ['maxEntries', 'evict', 'evictOnQuota', 'touchOnRead', 'mirror'] as const

/** @throws TtlError `UNSUPPORTED` for a declaration only `idb-ttl` honours, naming it and the import (`refuse`d: the open explains it) */
function refuseFullOnly(stores: StoreConfigs, purge: Required<PurgeOptions>): void {
  for (const [store, config] of Object.entries(stores)) {
    const option = FULL_ONLY.find((name) => config[name] !== undefined && config[name] !== false)
    if (option) throw refuse('UNSUPPORTED', 'storeNotInCore', store, option)
  }
  if (purge.mode === 'inline') throw refuse('UNSUPPORTED', 'inlineNotInCore')
}

/**
 * Opens (creating or upgrading) a database whose declared stores have time to live, with the
 * basic calls; its background purge runs in a Web Worker (loaded at the first idle callback). The handle's `raw` and `upgrade`'s
 * first argument are the native `IDBDatabase` (`idb-ttl` gives idb's `IDBPDatabase`: `wrap` them).
 * @throws TtlError `INVALID_OPTION`, `INVALID_TTL`, `SCHEMA_MISMATCH`, `UNSUPPORTED` (no IndexedDB
 * here; a store option or purge mode only `idb-ttl` has: `maxEntries`, `evict`, `evictOnQuota`,
 * `touchOnRead`, `mirror`, `'inline'`, `onLost`, `bucket.expiresAfterItems`); IndexedDB `VersionError`
 */
export function openTtlDB<S extends DBSchema | unknown = unknown>(name: string, options: OpenTtlCoreDBOptions<S>): Promise<TtlCoreDB<S>> {
  const { onLost, bucket } = (options ?? {}) as OpenTtlDBOptions
  if (onLost !== undefined || bucket?.expiresAfterItems) return explain(refuse('UNSUPPORTED', 'notInCore', onLost === undefined ? 'bucket.expiresAfterItems' : 'onLost'), loadTexts)
  return openDatabase(name, options, { upgrade: loadUpgrade, options: loadOptions, storage: loadStorage, relief: () => load(import('../purge/relieve.js')), texts: loadTexts, calls: loadCalls, locks: () => load(import('../platform/lock.js').then(({ holdLock }) => ({ holdLock }))) }, (opened) => {
    const parts = new CoreParts({ ...opened, background, reports: unheard, notices: (name) => lazyNotices(name, loadNotices) })
    const routes = new CoreOnlyRoutes({ ...opened, parts })
    routes.settingsChanged(opened.redeclared)
    return new TtlCoreDB<S>(routes, opened.unfollow, loadCalls)
  }, refuseFullOnly, ['capacity', 'mirror'])
}

/**
 * Deletes the database `name` and the generation databases where its stores with `evictOnQuota`
 * keep their values, which `indexedDB.deleteDatabase(name)` would leave behind; open handles
 * step aside for it. A database in a Storage Bucket is deleted from the bucket this realm opened
 * it in, or from `options.bucket` (docs/storage.md); `onLost` will not report it.
 * @throws TtlError `UNSUPPORTED` where there is no IndexedDB (Node); `INVALID_OPTION` for a bad bucket name
 */
export const deleteTtlDB = /* @__PURE__ */ deletingWith(loadStorage, loadTexts)
