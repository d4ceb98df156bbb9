// What every entry of the package exports but `openTtlDB`, which differs by how the purge runs
// (`index.ts`: in a Web Worker; `service-worker.ts`: inline).
export { TtlDB } from './db.js'
export { TtlCoreDB } from './core-db.js'
export { deleteTtlDB } from './generations/delete-db.js'
export { TtlError, type TtlErrorCode } from './rules/errors.js'
export type { PurgeReport } from './events/reports.js'
export type { StoreStats } from './reads/reads.js'
export type { ExpireEvent, ExpireOptions, ExpireReason } from './events/listeners.js'
export type { LiveQuery, LiveObserver, Unsubscribe } from './live/query.js'
export type { LiveOptions } from './live/result.js'
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
export type {
  Changes,
  DBSchema,
  EvictOrder,
  IndexQuery,
  IndexConfig,
  OpenTtlDBOptions,
  PurgeOptions,
  Query,
  Stamped,
  StoreConfig,
  TtlFields,
  TtlReadTransaction,
  TtlWriteTransaction,
  Writable,
} from './rules/types.js'
