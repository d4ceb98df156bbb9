/**
 * Conflicts: a queued write whose base (the server copy it was last in step with, by `_etag`)
 * changed on the server before the push. Cosmos DB's own policy for multi-region writes is last
 * writer wins on `_ts`; so is ours by default: the local write wins when it happened in the same
 * second as the server's last write or later (`_ts` is whole seconds; a tie goes to the write
 * being pushed, as it reaches the server last). An app's `onConflict` may decide instead.
 */
import type { Conflict, Resolution } from './types.js'

/** The default: last writer wins on `_ts`. A server copy deleted meanwhile loses to any local write. */
export function lastWriterWins(conflict: Conflict): Resolution {
  const serverTs = conflict.server?._ts
  if (serverTs === undefined) return 'local'
  return Math.floor(conflict.localAt / 1000) >= serverTs ? 'local' : 'server'
}
