/** The `purge` option of `openTtlDB`: its defaults and its validation. */
import { TtlError } from './errors.js'
import type { PurgeOptions } from './types.js'
import { checkKnownOptions } from './known-options.js'

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

/** Fills in the purge defaults and rejects malformed tuning. */
export function checkPurgeOptions(options: PurgeOptions = {}): Required<PurgeOptions> {
  if (options === null || typeof options !== 'object') throw new TtlError('INVALID_OPTION', `purge must be an options object; got ${String(options)}`)
  checkKnownOptions('purge', options, 'purge')
  const mode = options.mode ?? (typeof Worker === 'function' ? 'worker' : 'inline')
  // An option given as `undefined` means the default, as if it were absent.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))
  const purge = { batchSize: DEFAULT_BATCH_SIZE, sliceMs: 30, maxIntervalMs: 60_000, idleTimeoutMs: 2_000, ...given, mode }
  if (!['worker', 'inline', 'off'].includes(mode)) {
    throw new TtlError('INVALID_OPTION', `purge.mode must be 'worker', 'inline' or 'off'; got ${String(mode)}`)
  }
  if (!Number.isInteger(purge.batchSize) || !positive(purge.batchSize)) {
    throw new TtlError('INVALID_OPTION', 'purge.batchSize must be a positive integer')
  }
  for (const key of ['sliceMs', 'maxIntervalMs', 'idleTimeoutMs'] as const) {
    if (!positive(purge[key])) throw new TtlError('INVALID_OPTION', `purge.${key} must be a positive number of ms`)
  }
  return purge
}
