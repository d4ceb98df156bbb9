// Every entry as TypeScript resolves it with `moduleResolution: "node"` (node10), which reads
// no package.json `exports`: `types` for idb-ttl, `typesVersions` for idb-ttl/cosmos and
// idb-ttl/tanstack.
import { openTtlDB, type TtlDB } from 'idb-ttl'
import { syncCosmos, type CosmosSync } from 'idb-ttl/cosmos'
import { ttlStorage, type TtlAsyncStorage } from 'idb-ttl/tanstack'

export const entries: [typeof openTtlDB, typeof syncCosmos, typeof ttlStorage] = [openTtlDB, syncCosmos, ttlStorage]
export type Handles = [TtlDB<unknown>, CosmosSync, TtlAsyncStorage]
