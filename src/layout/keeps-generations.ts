/** Which declarations keep their values in generations (`generation-index.ts`): loaded with the schema work of an upgrade. */
import type { StoreConfig } from '../rules/types.js'

/**
 * Whether a store keeps its values in generations once created (or upgraded) with this
 * declaration: stores with `evictOnQuota`, except those whose key IndexedDB generates into the
 * value (`autoIncrement` with a `keyPath`: that key is known only to the row), and except in
 * Firefox, where deleting records gives their room back at once (docs/capacity-and-quota.md),
 * and whose quota accounting, measured at a 10 MB origin quota, grows by about a kilobyte per
 * write with generations until every write is refused.
 */
export function keepsGenerations(config: StoreConfig): boolean {
  const generatedKey = config.autoIncrement && config.keyPath !== undefined && config.keyPath !== null
  return config.evictOnQuota === true && !generatedKey && !/\bFirefox\//.test(globalThis.navigator?.userAgent ?? '')
}
