/**
 * A store's capacity as declared (SPEC §9): `maxEntries`, `evict` and `evictOnQuota` (checked by an
 * open given them: `option-checks.ts`), and the `$ts` index that stores with a capacity get. What
 * is evicted, and how, is in `purge/eviction.ts`.
 */
import type { EvictOrder, StoreConfig } from './types.js'

/** Index over `_ts`, on stores with a capacity. */
export const TS_INDEX = '$ts'

/** A store's capacity as its settings keep it (`StoreState.capacity`). */
export interface Capacity {
  /** Live items beyond this many are evicted by the purge; `null`: no cap. */
  maxEntries: number | null
  evict: EvictOrder
  evictOnQuota: boolean
}

/** The capacity a store declares, or `undefined` when it declares none. */
export function capacityOf(config: StoreConfig): Capacity | undefined {
  if (config.maxEntries === undefined && !config.evictOnQuota) return undefined
  return { maxEntries: config.maxEntries ?? null, evict: config.evict ?? 'oldest', evictOnQuota: config.evictOnQuota ?? false }
}

/** Whether two capacities are the same declaration. */
export function sameCapacity(a: Capacity | undefined, b: Capacity | undefined): boolean {
  return a?.maxEntries === b?.maxEntries && a?.evict === b?.evict && a?.evictOnQuota === b?.evictOnQuota
}
