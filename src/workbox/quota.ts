/**
 * A cache write refused at a full disk (`QuotaExceededError`): the cache gives up responses, as
 * a store with `evictOnQuota` does (SPEC §9), rather than being deleted whole as Workbox's
 * `purgeOnQuotaError` does. First every expired entry goes (with its response); then a share of
 * the live ones, least recently written first (a read of a sliding cache counts as a write).
 */
import { STORE, type CacheEntries } from './entries.js'

/** The share of live responses given up per refused write: the same quarter as the store's own. */
const SHARE = 0.25

/** Purges `entries` and gives up a share of its live responses (at least one). */
export async function makeRoom(entries: CacheEntries): Promise<void> {
  const { db } = entries
  await db.purgeExpired(STORE)
  // getAllKeys reads the live keys without touching them (touches owed are written first), then
  // the rows give each its _ts, whole seconds, and its `at` within them: the order to give them up in.
  const live = new Set(await db.getAllKeys(STORE))
  const rows = ((await db.raw.getAll(STORE)) as { url: string; _ts: number; at: number }[]).filter((row) => live.has(row.url))
  rows.sort((a, b) => a._ts - b._ts || a.at - b.at)
  const given = rows.slice(0, Math.max(1, Math.ceil(rows.length * SHARE))).map((row) => row.url)
  await entries.remove(given)
  await entries.settled()
}
