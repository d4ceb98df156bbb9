/** The `purge` option of `openTtlDB`: its defaults (its check, loaded when it is given: `option-checks.ts`). */
import type { PurgeOptions } from './types.js'

/** Keys per purge batch (one transaction each) unless `purge.batchSize` says otherwise. */
export const DEFAULT_BATCH_SIZE = 300
/**
 * A batch the app is not waiting behind may grow to this many times `batchSize` to finish the
 * second (expiry mark) it ends in (`purge/purge.ts`, `Courtesy.finish`).
 */
export const IDLE_GROWTH = 4

/** How many keys beyond `batchSize` an idle batch may take to finish its second. */
export function idleGrowth(batchSize: number): number {
  return (IDLE_GROWTH - 1) * batchSize
}

/**
 * The purge's settings where the app gives none (`option-checks.ts` checks the ones it gives): in a
 * worker where there are Web Workers.
 */
export function purgeDefaults(): Required<PurgeOptions> {
  return { batchSize: DEFAULT_BATCH_SIZE, sliceMs: 30, maxIntervalMs: 60_000, idleTimeoutMs: 2_000, mode: typeof Worker === 'function' ? 'worker' : 'inline' }
}
