/**
 * `openTtlDB` of `idb-ttl/service-worker`: the background purge runs in the service worker itself
 * (which cannot start a worker in Chromium, and runs the purge inside the events it hands to
 * `purgeDuring`), so nothing in its module graph starts one and its bundle carries no worker file.
 */
import type { DBSchema } from 'idb'
import { inlineBackground } from '../background/inline.js'
import * as upgradeWork from '../layout/upgrade.js'
import * as optionChecks from '../layout/options.js'
import * as reliefSteps from '../purge/relief.js'
import * as storageWatch from '../handle/storage-watch.js'
import * as storageWork from '../handle/storage-work.js'
import { deletingWith } from '../generations/delete-db.js'
import * as transactions from '../handle/transact.js'
import * as texts from '../rules/full-texts.js'
import * as staleReads from '../reads/stale.js'
import * as duringWork from '../background/during-work.js'
import * as touchWork from '../reads/touch.js'
import * as mirrorWork from '../transaction/mirror-queue.js'
import * as follow from '../live/subscribers.js'
import * as calls from './calls.js'
import { updateStashed, writeStashed } from '../writes/stashed-writes.js'
import { dropGenerationsOf } from '../generations/stash.js'
import { resolveRows } from '../generations/values.js'
import type { TtlDB } from './db.js'
import { openFull } from './open-full.js'
import type { OpenTtlDBOptions } from '../rules/types.js'

/** The schema work, imported: service workers forbid `import()`. */
const loadUpgrade = () => Promise.resolve(upgradeWork)

/** Storage Buckets and `db.storage()`, and the watch of `onLost` and `bucket.expiresAfterItems`: imported as well. */
const loadStorage = () => Promise.resolve(storageWork)

/** The words of the refusals, imported likewise. */
const loadTexts = () => Promise.resolve(texts)

/** What runs transactions and the writes of stores kept in generations, imported likewise. */
const transactionsAndStash = {
  transactions: () => Promise.resolve(transactions),
  stashWork: () => Promise.resolve({ writeStashed, updateStashed, dropGenerationsOf, resolveRows }),
}

/**
 * Opens (creating or upgrading) a database whose declared stores have time to live; its purge
 * runs inline whatever `purge.mode` says but `'off'`.
 * @throws TtlError `INVALID_OPTION`, `INVALID_TTL`, `SCHEMA_MISMATCH`, `UNSUPPORTED` (no IndexedDB here);
 * IndexedDB `VersionError`
 */
export function openTtlDB<S extends DBSchema | unknown = unknown>(name: string, options: OpenTtlDBOptions<S>): Promise<TtlDB<S>> {
  return openFull(name, options, inlineBackground, { upgrade: loadUpgrade, options: () => Promise.resolve(optionChecks), storage: loadStorage, relief: () => Promise.resolve(reliefSteps), texts: loadTexts, stale: () => Promise.resolve(staleReads), during: () => Promise.resolve(duringWork), touches: () => Promise.resolve(touchWork), mirror: () => Promise.resolve(mirrorWork), follow: () => Promise.resolve(follow), watch: () => Promise.resolve(storageWatch), calls: () => Promise.resolve(calls), ...transactionsAndStash })
}

/**
 * Deletes the database `name` and the generation databases where its stores with `evictOnQuota`
 * keep their values, which `indexedDB.deleteDatabase(name)` would leave behind; open handles
 * step aside for it. A database in a Storage Bucket is deleted from the bucket this realm opened
 * it in, or from `options.bucket` (docs/storage.md); `onLost` will not report it.
 * @throws TtlError `UNSUPPORTED` where there is no IndexedDB (Node); `INVALID_OPTION` for a bad bucket name
 */
export const deleteTtlDB = /* @__PURE__ */ deletingWith(loadStorage, loadTexts)
