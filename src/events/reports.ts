/**
 * Purge reports (`db.onPurge`): what each purge of this handle deleted, and every failure in the
 * background (a failed slice, a lost batch of touches, code that failed to load). A listener's
 * own error stays its own: it never stops the purge or fails the request that purged.
 */
import { describeError, kindOf, TtlError } from '../rules/errors.js'

/** What a purge did, or why it failed; delivered to `db.onPurge` listeners. */
export interface PurgeReport {
  /** The store purged; `'*'` when a failure hit the whole slice. */
  store: string
  /** Items deleted: expired ones, and live ones evicted (`evicted`). */
  deleted: number
  /** Of `deleted`, live items evicted to bring the store back to `maxEntries` (SPEC §9). */
  evicted?: number
  durationMs: number
  /** Dead items remain; the next slice follows at the next idle moment. */
  more: boolean
  /** When the next item of the store dies (epoch ms by the injected clock); `Infinity`: none will. */
  nextExpiryMs: number
  error?: { name: string; message: string }
}

/** One handle's `onPurge` listeners. */
export class PurgeReports {
  private readonly listeners = new Set<(report: PurgeReport) => void>()

  /** Registers `listener`; returns the function that removes it. */
  add(listener: (report: PurgeReport) => void): () => void {
    if (typeof listener !== 'function') throw new TtlError('INVALID_OPTION', `onPurge needs a function to call; got ${kindOf(listener)}`)
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  emit(report: PurgeReport): void {
    for (const listener of this.listeners) {
      try {
        listener(report)
      } catch {
        // A listener's own error must not stop the purge or fail the request that purged.
      }
    }
  }

  /** Reports a failure in the background, which no request of the app would hear otherwise. */
  failure(error: unknown, store = '*'): void {
    this.emit({ store, deleted: 0, durationMs: 0, more: false, nextExpiryMs: NaN, error: describeError(error) })
  }
}
