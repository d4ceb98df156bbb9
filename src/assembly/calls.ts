/**
 * What the handle's less common calls run (issue #44): the page entries load it with `import()`
 * at a handle's first `add` or `putAll` refused for a held key, `update`, `touch`, `expiresAt`,
 * `setDefaultTtl`, `getDefaultTtl`, `getAllKeys`, `get` by a range, `purgeExpired` (and the purge of
 * the expired at a full disk), and in the full handle
 * `iterate`, `stats`, `getFromIndex` and `getAllKeysFromIndex`, so that an app that only gets by
 * key, puts, deletes, gets all and counts loads none of it. `idb-ttl/service-worker` imports it.
 */
export { getKeys, getOne, expiryOf, stats, storedDefaultTtl, pages } from '../reads/more-reads.js'
export { update } from '../writes/update.js'
export { setDefaultTtl } from '../writes/default-ttl.js'
export { writeClaiming } from '../writes/claim.js'
export { purgeNow } from '../handle/purge-now.js'
export { publish } from '../events/listeners.js'
