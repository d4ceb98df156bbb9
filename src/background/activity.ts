/**
 * The requests the app starts through any handle of this realm, heard from the first load on: the
 * purge yields to them (`courtesy.ts`, loaded with it), and its worker is told of each.
 */

/** When the latest request through a handle of this realm started (`performance.now()`), handed to the purge's courtesy. */
export interface RequestTimes {
  last: number
}

export const requests: RequestTimes = { last: -Infinity }

/** Every handle of this realm, told of each request through any of them. */
const hearing = new Set<() => void>()

/**
 * Calls `listener` at every request through any handle of this realm, whatever its database:
 * the origin's databases share one storage backend, so a purge of one stalls reads of another
 * as much as its own (docs/benchmarks.md). Returns the function that stops it.
 */
export function hearRequests(listener: () => void): () => void {
  hearing.add(listener)
  return () => void hearing.delete(listener)
}

/** A user request is starting through some handle of this realm. */
export function requestStarting(): void {
  requests.last = performance.now()
  for (const listener of hearing) listener()
}
