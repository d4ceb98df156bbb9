/** The purge API's implementation: the same batched purge code on either side of the worker. */
import { purgeSlice, purgeStore, type Courtesy } from '../purge.js'
import type { Resume } from '../expiry-index.js'
import type { PurgeApi, PurgeConfig } from './api.js'

/**
 * Builds the API over a connection getter (the worker's own, or the page's in inline mode);
 * `courtesy` lets the app's requests go first.
 */
export function createPurgeApi(
  config: PurgeConfig,
  connect: () => Promise<IDBDatabase>,
  onClose: () => void,
  courtesy: Courtesy,
): PurgeApi {
  const resume = new Map<string, Resume>()
  const stores = Object.keys(config.stores)
  return {
    async slice(nowMs) {
      return purgeSlice(await connect(), stores, nowMs, { ...config, courtesy }, resume)
    },
    async purgeAll(names, nowMs) {
      const db = await connect()
      let total = 0
      for (const name of names) total += await purgeStore(db, name, () => nowMs, config.batchSize, courtesy)
      return total
    },
    async close() {
      onClose()
    },
  }
}
