// What every entry of the package exports (`idb-ttl`, `idb-ttl/service-worker` through `api.ts`,
// and `idb-ttl/core`) but `openTtlDB`: the basic handle's class, `deleteTtlDB`, `TtlError`, the
// resolver, and the types of options and items.
export { TtlCoreDB, type AnyTtlDB } from './core-db.js'
export { deleteTtlDB } from '../generations/delete-db.js'
export { TtlError, type TtlErrorCode } from '../rules/errors.js'
export { requestPersistence, type PersistenceAnswer, type StorageCall, type StorageStatus } from '../platform/bucket.js'
export type { BucketOptions } from '../rules/bucket-options.js'
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
} from '../rules/ttl.js'
export type { Changes, DBSchema, IndexConfig, LostReport, OpenTtlCoreDBOptions, OpenTtlDBOptions, PurgeOptions, Query, Stamped, StoreConfig, TtlFields, Writable } from '../rules/types.js'
