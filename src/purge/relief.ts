/**
 * The steps of quota relief (`relieve.ts`) with the round of eviction the stores with
 * `evictOnQuota` give up a share in (`evict-round.ts`), as the full entries load them at the first
 * write refused for lack of space (`idb-ttl/core`, which refuses `evictOnQuota`, loads `relieve.ts`).
 */
export * from './relieve.js'
export { evictRound } from './evict-round.js'
