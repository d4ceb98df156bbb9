/**
 * What a handle loads with a dynamic `import()` once it has opened, so that a page's first read
 * waits only for the code that opens and reads: writes and quota relief, sliding expiry, and the
 * background purge (its worker client and Comlink, the scheduler, eviction). Expiry listeners
 * stay in the first chunk: their presence must count from `onExpire` on.
 */
export { Background } from '../background/background.js'
export { dropGenerationsOf } from '../generations/stash.js'
export { evictRound, withQuotaRelief } from '../purge/quota.js'
export { storageUsage } from '../platform/storage.js'
export { settleTouches, Touches } from '../reads/touch.js'
export * as writes from '../writes/writes.js'
