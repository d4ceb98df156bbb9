/** The `purge` option of `openTtlDB`: its defaults and its validation. */
import { refuse } from './refusal.js'
import type { PurgeOptions } from './types.js'
import { unknownOption } from './known-options.js'

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

const positive = (value: unknown) => typeof value === 'number' && value > 0 && Number.isFinite(value)

/**
 * Fills in the purge defaults and rejects malformed tuning.
 * @throws TtlError `INVALID_OPTION` (`refuse`d: an open explains it)
 */
export function checkPurgeOptions(options: PurgeOptions = {}): Required<PurgeOptions> {
  if (options === null || typeof options !== 'object') throw refuse('INVALID_OPTION', 'purge', options)
  const unknown = unknownOption(options, 'purge')
  if (unknown !== undefined) throw refuse('INVALID_OPTION', 'unknownOption', 'purge', unknown, 'purge')
  const mode = options.mode ?? (typeof Worker === 'function' ? 'worker' : 'inline')
  // An option given as `undefined` means the default, as if it were absent.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))
  const purge = { batchSize: DEFAULT_BATCH_SIZE, sliceMs: 30, maxIntervalMs: 60_000, idleTimeoutMs: 2_000, ...given, mode }
  if (!['worker', 'inline', 'off'].includes(mode)) throw refuse('INVALID_OPTION', 'purgeMode', mode)
  if (!Number.isInteger(purge.batchSize) || !positive(purge.batchSize)) throw refuse('INVALID_OPTION', 'batchSize')
  for (const key of ['sliceMs', 'maxIntervalMs', 'idleTimeoutMs'] as const) {
    if (!positive(purge[key])) throw refuse('INVALID_OPTION', 'purgeMs', key)
  }
  return purge
}
