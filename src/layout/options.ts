/**
 * What an open checks only when it is given it (issue #44): a store's options beyond its key and
 * default (`indexes`, `keepTs`, `mirror`, `touchOnRead`, a capacity, `keepExpired`), what the
 * database must have for them, and the purge's tuning (`schema.ts` `OptionChecks`). The page entries
 * load it with `import()` at an open given one (`schema.ts` `givesMore`), so that an open of
 * `{ keyPath, defaultTtl }` stores loads none of it; `idb-ttl/service-worker` imports it.
 */
import { capacityOf, TS_INDEX } from '../rules/capacity.js'
import { checkBoolean, checkCapacity, checkKeepExpired } from '../rules/option-checks.js'
import { refuse } from '../rules/refusal.js'
import { EXPIRY_INDEX } from './expiry-index.js'
import { GEN_INDEX } from './generation-index.js'
import { isOptions, refuseUnknown } from './schema.js'
import { KNOWN_OPTIONS } from '../rules/known-options.js'
import type { StoreConfig } from '../rules/types.js'

export { checkPurgeOptions } from '../rules/option-checks.js'

/**
 * Refuses a store's option of a name no store takes, the first check of a store's options (`schema.ts` `checkStoreConfigs`).
 * @throws TtlError `INVALID_OPTION` (`refuse`d: an open explains it)
 */
export function refuseUnknownStoreOption(where: string, config: StoreConfig): void {
  refuseUnknown(where, config, KNOWN_OPTIONS.store)
}

/**
 * Checks a store's options beyond its key and default, once those passed (`schema.ts` `checkStoreConfigs`).
 * @throws TtlError `INVALID_OPTION` (`refuse`d: an open explains it)
 */
export function checkStoreOptions(name: string, config: StoreConfig, where: string): void {
  for (const [indexName, index] of Object.entries(config.indexes ?? {})) {
    if (!isOptions(index)) throw refuse('INVALID_OPTION', 'indexObject', indexName, name)
    refuseUnknown(`index "${indexName}" of ${where}`, index, KNOWN_OPTIONS.index)
  }
  for (const option of ['keepTs', 'mirror', 'touchOnRead'] as const) checkBoolean(name, config, option)
  if (config.touchOnRead && (config.keyPath === undefined || config.keyPath === null)) throw refuse('INVALID_OPTION', 'touchOnRead', name)
  if (config.mirror && (config.keyPath !== 'id' || config.autoIncrement || config.evictOnQuota)) throw refuse('INVALID_OPTION', 'mirror', name)
  checkCapacity(name, config)
  checkKeepExpired(name, config.keepExpired)
  // A user index named like the generation index would make the store pass for one that keeps
  // its values in generations (`hasGenerations`), and a purge delete values still referred to.
  const own = [EXPIRY_INDEX, TS_INDEX, GEN_INDEX].find((index) => config.indexes && index in config.indexes)
  if (own) throw refuse('INVALID_OPTION', 'ownIndex', name, own)
}

/** What `store` lacks for its declared capacity and indexes, as `schema.ts` `checkSchema` names it. */
export function lacks(name: string, config: StoreConfig, store: IDBObjectStore): string[] {
  const missing = capacityOf(config) && !store.indexNames.contains(TS_INDEX) ? [`${name} (its capacity needs an index over _ts)`] : []
  for (const index of Object.keys(config.indexes ?? {})) if (!store.indexNames.contains(index)) missing.push(`index "${index}" of store "${name}"`)
  return missing
}
