/**
 * A store's capacity as declared (SPEC §9): `maxEntries`, `evict` and `evictOnQuota`, their
 * validation, and the `$ts` index that stores with a capacity get. What is evicted, and how, is
 * in `purge/eviction.ts`.
 */
import { TtlError } from './errors.js'
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

/** @throws TtlError `INVALID_OPTION` naming the store and the option */
export function checkCapacity(store: string, config: StoreConfig): void {
  const { maxEntries, evict, evictOnQuota } = config
  if (maxEntries !== undefined && !(Number.isSafeInteger(maxEntries) && maxEntries >= 1)) {
    throw new TtlError('INVALID_OPTION', `store "${store}": maxEntries must be an integer of at least 1; got ${String(maxEntries)}`)
  }
  if (evict !== undefined && evict !== 'oldest' && evict !== 'soonest') {
    throw new TtlError('INVALID_OPTION', `store "${store}": evict must be 'oldest' or 'soonest'; got ${String(evict)}`)
  }
  if (evictOnQuota !== undefined && typeof evictOnQuota !== 'boolean') {
    throw new TtlError('INVALID_OPTION', `store "${store}": evictOnQuota must be true or false; got ${String(evictOnQuota)}`)
  }
}
