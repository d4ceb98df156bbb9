/**
 * The checks of the options an open runs only when it is given them (issue #44): a store's
 * booleans, its capacity (`maxEntries`, `evict`, `evictOnQuota`) and grace (`keepExpired`), and the
 * purge's tuning. They load with `layout/options.ts`, so that an open of `{ keyPath, defaultTtl }`
 * stores carries none of them.
 */
import { refuse } from './refusal.js'
import { KNOWN_OPTIONS } from './known-options.js'
import { unknownIn } from './open-options.js'
import { purgeDefaults } from './purge-options.js'
import { MAX_TTL } from './ttl.js'
import type { PurgeOptions, StoreConfig } from './types.js'

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

/**
 * The grace a store declares (`rules/grace.ts`), checked: absent, or whole seconds from 1 to 2147483647.
 * @throws TtlError `INVALID_OPTION` naming the store and `keepExpired` (`refuse`d: an open explains it)
 */
export function checkKeepExpired(store: string, keepExpired: unknown): void {
  if (keepExpired === undefined || (Number.isInteger(keepExpired) && (keepExpired as number) >= 1 && (keepExpired as number) <= MAX_TTL)) return
  throw refuse('INVALID_OPTION', 'keepExpired', store, keepExpired)
}

const positive = (value: unknown) => typeof value === 'number' && value > 0 && Number.isFinite(value)

/**
 * The `purge` option given to an open: its defaults filled in ({@link purgeDefaults}), malformed tuning refused.
 * @throws TtlError `INVALID_OPTION` (`refuse`d: an open explains it)
 */
export function checkPurgeOptions(options: PurgeOptions = {}): Required<PurgeOptions> {
  if (options === null || typeof options !== 'object') throw refuse('INVALID_OPTION', 'purge', options)
  const unknown = unknownIn(options, KNOWN_OPTIONS.purge)
  if (unknown !== undefined) throw refuse('INVALID_OPTION', 'unknownOption', 'purge', unknown, KNOWN_OPTIONS.purge)
  const defaults = purgeDefaults()
  const mode = options.mode ?? defaults.mode
  // An option given as `undefined` means the default, as if it were absent.
  const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined))
  const purge = { ...defaults, ...given, mode }
  if (!['worker', 'inline', 'off'].includes(mode)) throw refuse('INVALID_OPTION', 'purgeMode', mode)
  if (!Number.isInteger(purge.batchSize) || !positive(purge.batchSize)) throw refuse('INVALID_OPTION', 'batchSize')
  for (const key of ['sliceMs', 'maxIntervalMs', 'idleTimeoutMs'] as const) {
    if (!positive(purge[key])) throw refuse('INVALID_OPTION', 'purgeMs', key)
  }
  return purge
}
