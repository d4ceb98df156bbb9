// Every entry as TypeScript resolves it with `moduleResolution: "node"` (node10), which reads
// no package.json `exports`: `types` for idb-ttl, `typesVersions` for idb-ttl/core,
// idb-ttl/service-worker, idb-ttl/cosmos, idb-ttl/tanstack, idb-ttl/workbox and idb-ttl/keyval.
import { openTtlDB, type TtlDB } from 'idb-ttl'
import { openTtlDB as openCore, type TtlCoreDB } from 'idb-ttl/core'
import { syncCosmos, type CosmosSync } from 'idb-ttl/cosmos'
import { ttlStorage, type TtlAsyncStorage } from 'idb-ttl/tanstack'
import { TtlExpirationPlugin } from 'idb-ttl/workbox'
import { openTtlDB as openInServiceWorker } from 'idb-ttl/service-worker'
import { createStore, type UseStore } from 'idb-ttl/keyval'

export const entries: [typeof openTtlDB, typeof openCore, typeof openInServiceWorker, typeof syncCosmos, typeof ttlStorage, typeof TtlExpirationPlugin, typeof createStore] = [openTtlDB, openCore, openInServiceWorker, syncCosmos, ttlStorage, TtlExpirationPlugin, createStore]
export type Handles = [TtlDB<unknown>, TtlCoreDB<unknown>, CosmosSync, TtlAsyncStorage, UseStore]
