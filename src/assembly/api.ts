// What the full entries export but `openTtlDB`, which differs by how the purge runs
// (`../index.ts`: in a Web Worker; `../service-worker.ts`: inline): what every entry exports
// (`common.ts`), the full handle, and the types of its features.
export * from './common.js'
export { TtlDB } from './db.js'
export type { PurgeReport } from '../events/reports.js'
export type { StoreStats } from '../reads/reads.js'
export type { StaleEntry, StaleItem } from '../reads/stale.js'
export type { ExpireEvent, ExpireOptions, ExpireReason } from '../events/listeners.js'
export type { LiveQuery, LiveObserver, Unsubscribe } from '../live/query.js'
export type { LiveOptions } from '../live/result.js'
export type { EvictOrder, IndexQuery, TtlReadTransaction, TtlWriteTransaction } from '../rules/types.js'
