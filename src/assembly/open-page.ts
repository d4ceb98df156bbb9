/** `openTtlDB` of the main entry, `idb-ttl`: the background purge runs in a Web Worker where it can. */
import type { DBSchema } from 'idb'
import { startPurgeWorker } from '../background/worker/start.js'
import type { TtlDB } from './db.js'
import { openFull } from './open-full.js'
import type { OpenTtlDBOptions } from '../rules/types.js'

/**
 * Opens (creating or upgrading) a database whose declared stores have time to live.
 * @throws TtlError `INVALID_OPTION`, `INVALID_TTL`, `SCHEMA_MISMATCH`, `UNSUPPORTED` (no IndexedDB here);
 * IndexedDB `VersionError`
 */
export function openTtlDB<S extends DBSchema | unknown = unknown>(name: string, options: OpenTtlDBOptions<S>): Promise<TtlDB<S>> {
  return openFull(name, options, startPurgeWorker)
}
