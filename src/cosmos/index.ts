export { syncCosmos } from './sync.js'
export { lastWriterWins } from './conflicts.js'
export { OfflineError } from './remote.js'
export type { Conflict, CosmosItem, CosmosSync, Rejected, Resolution, SyncOptions, SyncState, SyncStatus } from './types.js'
