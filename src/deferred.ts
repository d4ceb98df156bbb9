/**
 * What a handle loads with a dynamic `import()` once it has opened, so that a page's first read
 * waits only for the code that opens and reads: writes and quota relief, sliding expiry, and the
 * background purge (its worker client and Comlink, the scheduler, eviction). Expiry listeners
 * stay in the first chunk: their presence must count from `onExpire` on.
 */
export { Background } from './background.js'
export { dropGenerationsOf } from './generation-writes.js'
export { evictRound, storageUsage, withQuotaRelief } from './quota.js'
export { settleTouches, Touches } from './touch.js'
export * as writes from './writes.js'
