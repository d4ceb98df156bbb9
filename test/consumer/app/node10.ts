// Every entry as TypeScript resolves it with `moduleResolution: "node"` (node10), which reads
// no package.json `exports`: `types` for idb-ttl, `typesVersions` for idb-ttl/core,
// idb-ttl/service-worker, idb-ttl/cosmos, idb-ttl/tanstack and idb-ttl/workbox.
import { openTtlDB, type TtlDB } from 'idb-ttl'
import { openTtlDB as openCore, type TtlCoreDB } from 'idb-ttl/core'
import { syncCosmos, type CosmosSync } from 'idb-ttl/cosmos'
import { ttlStorage, type TtlAsyncStorage } from 'idb-ttl/tanstack'
import { TtlExpirationPlugin } from 'idb-ttl/workbox'
import { openTtlDB as openInServiceWorker } from 'idb-ttl/service-worker'

export const entries: [typeof openTtlDB, typeof openCore, typeof openInServiceWorker, typeof syncCosmos, typeof ttlStorage, typeof TtlExpirationPlugin] = [openTtlDB, openCore, openInServiceWorker, syncCosmos, ttlStorage, TtlExpirationPlugin]
export type Handles = [TtlDB<unknown>, TtlCoreDB<unknown>, CosmosSync, TtlAsyncStorage]
