/**
 * `bucket.expiresAfterItems`: the bucket's expiry kept at or after the latest expiry of the items
 * it holds, so that the browser may delete the bucket once all of them are dead, never before.
 * Set at rest (`at-rest.ts`), not on each write: a write whose item outlives the bucket's expiry
 * is covered within `REST_MS`, or when the page is hidden.
 */
import type { Connection } from '../layout/connection.js'
import { latestExpiry } from '../layout/latest-expiry.js'
import type { StorageBucket } from '../platform/factory.js'

/**
 * The expiry of a bucket that holds an item that never expires: 8.64e15 ms, the last time a
 * `Date` holds (an expiry once set cannot be taken back to none).
 */
const NEVER = 8.64e15

/** The work that moves `bucket`'s expiry after the latest item of `stores`. */
export function followItems(bucket: StorageBucket, connection: Connection, stores: readonly string[]): () => Promise<void> {
  // What the bucket's expiry is known to be at least: no read of it while the latest item dies earlier.
  let known = -Infinity
  return async () => {
    const db = connection.openNow
    if (!db) return
    const latest = Math.min(await latestExpiry(db, stores), NEVER)
    // No items (-Infinity): nothing to keep.
    if (latest <= known) return
    const current = await bucket.expires()
    if (current === null || current < latest) await bucket.setExpires(latest)
    known = Math.max(current ?? latest, latest)
  }
}
