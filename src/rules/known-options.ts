/**
 * Options objects are checked for names the library does not know: in plain JavaScript a
 * misspelled option (`defaultTTL`) would otherwise be ignored, and TTL silently stay off. An open
 * checks its own options with `open-options.ts` alone, and loads these lists (with the option
 * checks, `layout/options.ts`) when a store is given more than its key and default.
 */

/**
 * The options each object of `openTtlDB` takes beyond its own (`open-options.ts`), by where it
 * appears (`bucket`'s: `bucket-options.ts`; `db.live`'s: `live/hub.ts`).
 */
export const KNOWN_OPTIONS = {
  store: ['keyPath', 'autoIncrement', 'defaultTtl', 'indexes', 'keepTs', 'mirror', 'touchOnRead', 'maxEntries', 'evict', 'evictOnQuota', 'keepExpired'],
  index: ['keyPath', 'unique', 'multiEntry'],
  purge: ['mode', 'batchSize', 'sliceMs', 'maxIntervalMs', 'idleTimeoutMs'],
} as const
