/**
 * Options objects are checked for names the library does not know: in plain JavaScript a
 * misspelled option (`defaultTTL`) would otherwise be ignored, and TTL silently stay off. An open
 * checks its own options with `open-options.ts` alone, and loads these lists (with the option
 * checks, `layout/options.ts`) when a store is given more than its key and default.
 */
import { OPEN_OPTIONS, unknownIn } from './open-options.js'

/** The options each object of `openTtlDB` (and of `db.live`) takes, by where it appears. */
export const KNOWN_OPTIONS = {
  openTtlDB: OPEN_OPTIONS,
  store: ['keyPath', 'autoIncrement', 'defaultTtl', 'indexes', 'keepTs', 'mirror', 'touchOnRead', 'maxEntries', 'evict', 'evictOnQuota', 'keepExpired'],
  index: ['keyPath', 'unique', 'multiEntry'],
  purge: ['mode', 'batchSize', 'sliceMs', 'maxIntervalMs', 'idleTimeoutMs'],
  live: ['index', 'query', 'count'],
  bucket: ['name', 'persisted', 'durability', 'quota', 'expires', 'expiresAfterItems'],
} as const

export type OptionsKind = keyof typeof KNOWN_OPTIONS

/** The first option of `options` that an object of this kind does not take, if any. */
export function unknownOption(options: object, kind: OptionsKind): string | undefined {
  return unknownIn(options, KNOWN_OPTIONS[kind])
}

