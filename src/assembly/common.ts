// What every entry of the package exports (`idb-ttl`, `idb-ttl/service-worker` through `api.ts`,
// and `idb-ttl/core`) but `openTtlDB` and `deleteTtlDB` (which load what they need as the entry does): the basic handle's class, `TtlError`, the
// resolver, and the types of options and items.
export { TtlCoreDB, type AnyTtlDB } from './core-db.js'
export { TtlError, type TtlErrorCode } from '../rules/errors.js'
export { requestPersistence, type PersistenceAnswer } from '../platform/persistence.js'
export type { StorageCall, StorageStatus } from '../platform/bucket.js'
export type { BucketOptions } from '../rules/bucket-options.js'
export { checkDefaultTtl, expiresAt, isExpired, itemTtl, ttlUntil, type ResolveOptions } from '../rules/resolver.js'
export { effectiveTtl, isValidTtl, MAX_TTL, type DefaultTtl, type ItemTtl, type TtlValues } from '../rules/ttl.js'
export type { Changes, DBSchema, IndexConfig, LostReport, OpenTtlCoreDBOptions, OpenTtlDBOptions, PurgeOptions, Query, Stamped, StoreConfig, TtlFields, Writable } from '../rules/types.js'
