// Both entries as TypeScript resolves them with `moduleResolution: "node"` (node10), which reads
// no package.json `exports`: `types` for idb-ttl, `typesVersions` for idb-ttl/cosmos.
import { openTtlDB, type TtlDB } from 'idb-ttl'
import { syncCosmos, type CosmosSync } from 'idb-ttl/cosmos'

export const entries: [typeof openTtlDB, typeof syncCosmos] = [openTtlDB, syncCosmos]
export type Handles = [TtlDB<unknown>, CosmosSync]
