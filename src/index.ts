export { openTtlDB, TtlDB } from './db.js'
export { deleteTtlDB } from './delete-db.js'
export { TtlError, type TtlErrorCode } from './errors.js'
export type { PurgeReport } from './scheduler.js'
export type { StoreStats } from './reads.js'
export type { ExpireEvent, ExpireOptions, ExpireReason } from './events.js'
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
} from './ttl.js'
export type {
  DBSchema,
  EvictOrder,
  IndexConfig,
  OpenTtlDBOptions,
  PurgeOptions,
  Stamped,
  StoreConfig,
  TtlFields,
  Writable,
} from './types.js'
