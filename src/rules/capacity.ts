/**
 * A store's capacity as declared (SPEC §9): `maxEntries`, `evict` and `evictOnQuota`, their
 * validation, and the `$ts` index that stores with a capacity get. What is evicted, and how, is
 * in `purge/eviction.ts`.
 */
import { refuse } from './refusal.js'
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

/** @throws TtlError `INVALID_OPTION` naming the store and the option (`refuse`d: an open explains it) */
export function checkCapacity(store: string, config: StoreConfig): void {
  const { maxEntries, evict } = config
  if (maxEntries !== undefined && !(Number.isSafeInteger(maxEntries) && maxEntries >= 1)) throw refuse('INVALID_OPTION', 'maxEntries', store, maxEntries)
  if (evict !== undefined && evict !== 'oldest' && evict !== 'soonest') throw refuse('INVALID_OPTION', 'evict', store, evict)
  checkBoolean(store, config, 'evictOnQuota')
}

/** @throws TtlError `INVALID_OPTION` when the store's `option` is given and not a boolean (`refuse`d) */
export function checkBoolean(store: string, config: StoreConfig, option: 'keepTs' | 'mirror' | 'touchOnRead' | 'evictOnQuota'): void {
  if (config[option] !== undefined && typeof config[option] !== 'boolean') throw refuse('INVALID_OPTION', 'boolean', store, option, config[option])
}
