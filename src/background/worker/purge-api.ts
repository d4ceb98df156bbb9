/** The purge API's implementation: the same batched purge code on either side of the worker. */
import { META_STORE, type Resume } from '../../layout/expiry-index.js'
import { publish } from '../../events/listeners.js'
import { ListeningWatch } from '../../events/listening.js'
import { publishJournaled, replayJournal } from '../../purge/journal.js'
import { dropGenerationsOf } from '../../generations/stash.js'
import { generationValues } from '../../generations/values.js'
import { purgeSlice, purgeStore, type Courtesy, type Witness } from '../../purge/purge.js'
import { req } from '../../platform/request.js'
import { settleAllTabs } from '../../reads/settle-tabs.js'
import type { PurgeApi, PurgeConfig } from './api.js'

/**
 * Every TTL store of the database, as its metadata store lists them: another app version, or
 * another module opening the same database, may have declared stores this handle does not know,
 * and there is one purger for all of them. A store an upgrade deleted may linger in the list.
 */
async function ttlStores(db: IDBDatabase): Promise<string[]> {
  const keys = await req(db.transaction(META_STORE).objectStore(META_STORE).getAllKeys())
  // Settings are kept under store names; other entries (registries of generations) under arrays.
  return keys.filter((key): key is string => typeof key === 'string' && db.objectStoreNames.contains(key))
}

/**
 * Reads values for the stores some connection listens to, and publishes what was deleted. Who
 * listens is asked before each batch (see {@link ListeningWatch}), so that a listener added
 * while a purge runs hears the batches deleted after it. `close()` once the purge is done.
 */
function witnessFor(dbName: string, connect: () => Promise<IDBDatabase>): Witness & { close(): void } {
  const listening = new ListeningWatch(dbName)
  return {
    wants: (store) => listening.wants(store),
    close: () => listening.close(),
    deleted(store, items, reason, journal) {
      const event = { store, reason, items }
      // A journal entry left behind (its deletion failed) is published again by a later purge.
      if (journal === undefined) void publish(dbName, event, generationValues)
      else publishJournaled(connect, dbName, journal, event).catch(() => {})
    },
  }
}

/**
 * Builds the API over a connection getter (the worker's own, or the page's in inline mode);
 * `courtesy` lets the app's requests go first.
 */
export function createPurgeApi(
  config: PurgeConfig,
  connect: () => Promise<IDBDatabase>,
  onClose: () => void | Promise<void>,
  courtesy: Courtesy,
): PurgeApi {
  const resume = new Map<string, Resume>()
  /** What every purge does first: owed touches written, events left by ended realms published; then `run`. */
  const purge = async <T>(run: (witness: Witness) => Promise<T>): Promise<T> => {
    await settleAllTabs(config.name)
    await replayJournal(connect, config.name)
    const witness = witnessFor(config.name, connect)
    try {
      return await run(witness)
    } finally {
      witness.close()
    }
  }
  return {
    slice: (clock) =>
      purge(async (witness) => {
        const reports = await purgeSlice(connect, await ttlStores(await connect()), clock, { ...config, courtesy, witness }, resume)
        // Values of deleted items stay in their generations until none is referred to any more.
        const emptied = reports.filter((report) => report.deleted > 0).map((report) => report.store)
        if (emptied.length > 0) await dropGenerationsOf(await connect(), emptied)
        return reports
      }),
    purgeAll: (names, nowMs, stale) =>
      purge(async (witness) => {
        let total = 0
        for (const name of names) total += await purgeStore(connect, name, nowMs, config.batchSize, courtesy, witness, stale)
        if (total > 0) await dropGenerationsOf(await connect(), names)
        return total
      }),
    async close() {
      await onClose()
    },
  }
}
