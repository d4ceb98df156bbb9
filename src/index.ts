export { TtlDB } from './db.js'
export { openTtlDB } from './open.js'
export { deleteTtlDB } from './generations/delete-db.js'
export { TtlError, type TtlErrorCode } from './rules/errors.js'
export type { PurgeReport } from './events/reports.js'
export type { StoreStats } from './reads/reads.js'
export type { ExpireEvent, ExpireOptions, ExpireReason } from './events/listeners.js'
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
