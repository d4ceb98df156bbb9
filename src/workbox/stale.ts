/**
 * Last-known responses for a network that fails (`staleIfError`, issue #46). A strategy run whose
 * cache read met an expired response still within its grace keeps it in the run's state; if the
 * run's fetch then fails and it has no response, the strategy asks `handlerDidError`, which
 * answers with that response, marked, while its entry is still within the grace.
 */
import type { PluginState } from './types.js'

/** The header of a response served expired: its expiry instant, ISO 8601. */
export const STALE_HEADER = 'X-Idb-Ttl-Stale'

/** An expired response a run's cache read met. */
export interface StaleCandidate {
  cacheName: string
  url: string
  response: Response
}

/** Where a run's state keeps its candidate, and that its fetch failed. */
const CANDIDATE = 'idb-ttl:stale'
const FAILED = 'idb-ttl:fetch-failed'

/** Keeps `candidate` in the run's `state`. */
export function keepCandidate(state: PluginState, candidate: StaleCandidate): void {
  state[CANDIDATE] = candidate
}

/** Notes in the run's `state` that its fetch failed. */
export function fetchFailed(state: PluginState): void {
  state[FAILED] = true
}

/** The run's candidate, if its fetch failed: only a failing network gets an expired response. */
export function candidateAfterFailure(state: PluginState | undefined): StaleCandidate | undefined {
  return state?.[FAILED] ? (state[CANDIDATE] as StaleCandidate | undefined) : undefined
}

/**
 * A copy of `response` with {@link STALE_HEADER} saying when it expired; `undefined` for an
 * opaque response, which shows the page no header and takes none: it is not served expired.
 */
export function markStale(response: Response, expiredAt: number): Response | undefined {
  if (response.type.startsWith('opaque')) return undefined
  const headers = new Headers(response.headers)
  headers.set(STALE_HEADER, new Date(expiredAt).toISOString())
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
}
