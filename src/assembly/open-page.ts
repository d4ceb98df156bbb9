/**
 * `openTtlDB` of the main entry, `idb-ttl`: the background purge runs in a Web Worker where it can,
 * and is loaded with `import()` at the first idle callback (`background/lazy.ts`); the schema work
 * when an open first needs it; what runs transactions at the first `db.transaction`, and the writes of stores kept in generations
 * at the first.
 */
import type { DBSchema } from 'idb'
import { lazyBackground } from '../background/lazy.js'
import { load, once } from '../platform/load.js'
import type { TtlDB } from './db.js'
import { openFull } from './open-full.js'
import { deletingWith } from '../generations/delete-db.js'
import type { OpenTtlDBOptions } from '../rules/types.js'

/**
 * The background, loaded at the first idle callback: the purge worker's start (`background/page.ts`,
 * which `idb-ttl/core` loads too) and the page's own purger to fall back on (`background/inline.ts`,
 * which `idb-ttl/service-worker` imports).
 */
const background = lazyBackground(async () => {
  const [{ fullBackground }, { inlinePurger }] = await load(Promise.all([import('../background/page.js'), import('../background/inline.js')]))
  return { makeBackground: fullBackground(inlinePurger) }
})

/** The schema work, loaded when an open first needs to create or upgrade the database. */
const loadUpgrade = () => load(import('../layout/upgrade.js'))

/** The checks of the options beyond a store's key and default, and of the purge's: loaded by an open given one. */
const loadOptions = () => load(import('../layout/options.js'))

/**
 * Storage Buckets and `db.storage()`, loaded when an open, a `storage()` or a deletion first needs
 * them; the watch of `onLost` and `bucket.expiresAfterItems` when an open asks for one.
 */
const loadStorage = () => load(import('../handle/storage-work.js'))

/**
 * What runs `db.transaction` (SPEC §11), loaded at a handle's first transaction; the writes and
 * reads of stores kept in generations (`evictOnQuota`), at the first such write, read or drop of generations.
 */
/** The words of the refusals of the open, the calls and `deleteTtlDB`, loaded at the first (`rules/texts.ts`). */
const loadTexts = once(() => load(import('../rules/full-texts.js')))

const transactionsAndStash = {
  transactions: () => load(import('../handle/transact.js')),
  stashWork: async () => {
    // The one name each of stash.ts and values.ts gives, taken at its `import()`: the namespace the bundler builds
    // for them then holds it alone, not their other exports (which the full entry's bundle would keep).
    const [writes, dropGenerationsOf, resolveRows] = await load(Promise.all([import('../writes/stashed-writes.js'), import('../generations/stash.js').then((m) => m.dropGenerationsOf), import('../generations/values.js').then((m) => m.resolveRows)]))
    return { ...writes, dropGenerationsOf, resolveRows }
  },
}

/**
 * Opens (creating or upgrading) a database whose declared stores have time to live.
 * @throws TtlError `INVALID_OPTION`, `INVALID_TTL`, `SCHEMA_MISMATCH`, `UNSUPPORTED` (no IndexedDB here);
 * IndexedDB `VersionError`
 */
export function openTtlDB<S extends DBSchema | unknown = unknown>(name: string, options: OpenTtlDBOptions<S>): Promise<TtlDB<S>> {
  return openFull(name, options, background, { upgrade: loadUpgrade, options: loadOptions, storage: loadStorage, relief: () => load(import('../purge/relief.js')), texts: loadTexts, stale: () => load(import('../reads/stale.js')), during: () => load(import('../background/during-work.js')), touches: () => load(import('../reads/touch.js')), mirror: () => load(import('../transaction/mirror-queue.js')), follow: () => load(import('../live/subscribers.js')), watch: () => load(import('../handle/storage-watch.js')), calls: () => load(import('./calls.js')), ...transactionsAndStash })
}

/**
 * Deletes the database `name` and the generation databases where its stores with `evictOnQuota`
 * keep their values, which `indexedDB.deleteDatabase(name)` would leave behind; open handles
 * step aside for it. A database in a Storage Bucket is deleted from the bucket this realm opened
 * it in, or from `options.bucket` (docs/storage.md); `onLost` will not report it.
 * @throws TtlError `UNSUPPORTED` where there is no IndexedDB (Node); `INVALID_OPTION` for a bad bucket name
 */
export const deleteTtlDB = /* @__PURE__ */ deletingWith(loadStorage, loadTexts)
