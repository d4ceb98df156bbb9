/**
 * A cache write refused at a full disk (`QuotaExceededError`): the cache gives up responses, as
 * a store with `evictOnQuota` does (SPEC §9), rather than being deleted whole as Workbox's
 * `purgeOnQuotaError` does. First every expired entry goes (with its response), those kept for
 * `staleIfError` too; then a share of the live ones, least recently used first.
 */
import type { CacheEntries } from './entries.js'

/** The share of live responses given up per refused write: the same quarter as the store's own. */
const SHARE = 0.25

/** Purges `entries` of every expired response and gives up a share of its live ones (at least one). */
export async function makeRoom(entries: CacheEntries): Promise<void> {
  await entries.purge(0)
  const live = await entries.order()
  await entries.remove(live.slice(0, Math.max(1, Math.ceil(live.length * SHARE))))
}
