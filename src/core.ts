// `idb-ttl/core`: the basic calls, with the same layout on disk, purge worker and rules as
// `idb-ttl` (a core handle and a full one interoperate on one database), in a fraction of its bytes.
export { TtlCoreDB } from './core-db.js'
export { openTtlDB } from './open-core.js'
export { deleteTtlDB } from './generations/delete-db.js'
export { TtlError, type TtlErrorCode } from './rules/errors.js'
export {
  checkDefaultTtl,
  effectiveTtl,
  expiresAt,
  isExpired,
  isValidTtl,
  itemTtl,
  MAX_TTL,
  ttlUntil,
  type DefaultTtl,
  type ItemTtl,
  type ResolveOptions,
  type TtlValues,
} from './rules/ttl.js'
export type { Changes, DBSchema, IndexConfig, OpenTtlDBOptions, PurgeOptions, Query, Stamped, StoreConfig, TtlFields, Writable } from './rules/types.js'
