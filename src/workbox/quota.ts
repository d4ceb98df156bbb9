/**
 * A cache write refused at a full disk (`QuotaExceededError`): the cache gives up responses, as
 * a store with `evictOnQuota` does (SPEC §9), rather than being deleted whole as Workbox's
 * `purgeOnQuotaError` does. First every expired entry goes (with its response); then a share of
 * the live ones, least recently used first.
 */
import { STORE, type CacheEntries } from './entries.js'

/** The share of live responses given up per refused write: the same quarter as the store's own. */
const SHARE = 0.25

/** Purges `entries` and gives up a share of its live responses (at least one). */
export async function makeRoom(entries: CacheEntries): Promise<void> {
  await entries.db.purgeExpired(STORE)
  const live = await entries.db.count(STORE)
  await entries.remove(await entries.leastUsed(Math.max(1, Math.ceil(live * SHARE))))
  await entries.settled()
}
