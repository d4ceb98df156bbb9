/**
 * What a handle loads with a dynamic `import()` once it has opened, so that a page's first read
 * waits only for the code that opens and reads: writes and quota relief, sliding expiry, expiry
 * events, and the background purge (its worker client and Comlink, the scheduler, eviction).
 */
export { Background } from './background.js'
export { ExpiryListeners, publish } from './events.js'
export { evictRound, storageUsage, withQuotaRelief } from './quota.js'
export { settleTouches, Touches } from './touch.js'
export * as writes from './writes.js'
