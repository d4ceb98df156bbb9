/**
 * Writes at a full disk (SPEC §9): a write refused with `QuotaExceededError` is retried after
 * every expired item of the database was purged, then after each round in which the stores with
 * `evictOnQuota` gave up a share of their live items, a bounded number of times. Each attempt is
 * the whole write in one transaction, so a write that never fits leaves nothing behind, and the
 * caller sees the original error. A realm makes room in a database for one write at a time.
 *
 * After purging and after each round of eviction, the generations no row refers to any more are
 * deleted (`generations/values.ts`): for stores that keep their values there, that is what gives room
 * back in Chromium and WebKit, which free deleted records only when their storage compacts. For
 * stores whose rows hold their values themselves, evicting goes on only while it gives room back:
 * where the browser reports its usage (`navigator.storage.estimate()`), a round after which the
 * usage did not drop is the last, so that one full disk does not empty them for nothing.
 *
 * Here the write's first attempt; the wait on another write's relief and the steps of relief are
 * `relieve.ts`, which the page entries load with `import()` at the first full disk (issue #44), with
 * the undoing of what Firefox keeps of a refused write (`undo-leaked.ts`).
 */
import type { QuotaRelief } from './relieve.js'
import { isQuotaError } from '../platform/storage.js'

/** `relieve.ts` as an entry gets it: with `import()` in the page entries, at the first full disk; imported by the service worker's. */
export type LoadRelief = () => Promise<typeof import('./relieve.js')>

/**
 * Runs `attempt`, and again after each step of `relief` while it fails for lack of space, one
 * write at a time per database (`relieve.ts` `relieveInTurn`, loaded by `load`
 * at the first refusal: a write that never meets a full disk carries none of it).
 */
export async function withQuotaRelief<T>(attempt: () => Promise<T>, relief: QuotaRelief, load: LoadRelief): Promise<T> {
  try {
    return await attempt()
  } catch (error) {
    if (!isQuotaError(error)) throw error
    // Steps that cannot be loaded (an offline page that never cached them) make no room: the write
    // rejects as one that never fits, with its own error (SPEC §9); the next refused write loads them again.
    return load().then(
      ({ relieveInTurn }) => relieveInTurn(attempt, relief, error),
      () => Promise.reject(error),
    )
  }
}

/** The item a write at a full disk rewrites, which quota relief must not give up. */
export interface Spare {
  store: string
  key: IDBValidKey
}
