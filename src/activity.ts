/**
 * User requests win over purging: the purge pauses between batches while the app is using the
 * database, so a request waits for at most the one batch under way. A pause is bounded, so a
 * busy app slows the purge down without stopping it.
 */

/** A request within this many ms counts as the app being busy. */
export const QUIET_MS = 4
/** The longest a purge waits before its next batch, however busy the app is. */
export const MAX_PAUSE_MS = 100

const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 1))

export class UserActivity {
  private busyUntil = -Infinity

  /** `now` and `wait` are the real monotonic clock and a 1 ms timer; tests pass their own. */
  constructor(
    private readonly now: () => number = () => performance.now(),
    private readonly wait: () => Promise<void> = tick,
  ) {}

  /** A user request is starting. */
  note(): void {
    this.busyUntil = this.now() + QUIET_MS
  }

  /** Resolves once the app has been quiet for {@link QUIET_MS}, or after {@link MAX_PAUSE_MS}. */
  async pause(): Promise<void> {
    const started = this.now()
    while (this.now() < this.busyUntil && this.now() - started < MAX_PAUSE_MS) await this.wait()
  }
}
