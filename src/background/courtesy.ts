/**
 * User requests win over purging: while the app is using the database, the purge takes small
 * batches and pauses after each until the app has been quiet for a moment, so a request waits
 * for at most one small batch. A pause is bounded, so a busy app slows the purge, never stops it.
 * When the app has been idle for a while the purge runs full batches without pausing, each of which
 * may grow to finish the second it ends in.
 *
 * Loaded with the purge it paces (issue #44); the time of the app's last request is kept from the
 * first by `activity.ts`, in every first load, and handed in.
 */
import { idleGrowth } from '../rules/purge-options.js'
import type { RequestTimes } from './activity.js'

/** A request within this many ms means the app is busy right now. */
export const QUIET_MS = 4
/** A request within this many ms makes the purge courteous: small batches, pauses. */
export const RECENT_MS = 250
/** The longest a purge waits before its next batch, however busy the app is. */
export const MAX_PAUSE_MS = 100
/** Keys per batch while the app is busy: a batch short enough not to be noticed. */
export const BUSY_BATCH_SIZE = 50

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1))

export class UserActivity {
  /**
   * `now` and `wait` are the real monotonic clock and a 1 ms timer; tests pass their own.
   * `requests`: when the app's last request started, by `now` (a page's: `activity.ts` `requests`).
   */
  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly wait: () => Promise<void> = tick,
    private readonly requests: RequestTimes = { last: -Infinity },
  ) {}

  /** A user request is starting (the purge worker's, told by the page). */
  note(): void {
    this.requests.last = this.now()
  }

  /** Whether the app made a request lately. */
  get busy(): boolean {
    return this.now() - this.requests.last <= RECENT_MS
  }

  /** How many keys the next batch may take. */
  batchSize(configured: number): number {
    return this.busy ? Math.min(configured, BUSY_BATCH_SIZE) : configured
  }

  /** How many more an idle app's batch may take to finish its second (`Courtesy.finish`); none while busy. */
  finish(configured: number): number {
    return this.busy ? 0 : idleGrowth(configured)
  }

  /**
   * Between two batches: nothing when the app has been idle lately; otherwise at least
   * {@link QUIET_MS} (for the app's next request to arrive) and until the app has been quiet
   * that long, at most {@link MAX_PAUSE_MS}.
   */
  async pause(): Promise<void> {
    if (!this.busy) return
    const started = this.now()
    do await this.wait()
    while (
      (this.now() - started < QUIET_MS || this.now() - this.requests.last < QUIET_MS) &&
      this.now() - started < MAX_PAUSE_MS
    )
  }
}
