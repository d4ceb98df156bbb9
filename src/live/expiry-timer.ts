/**
 * The timer that wakes a live query when the first item of its result expires: one `setTimeout`
 * whose delay is read from the handle's clock, no polling. When it fires it asks the clock again,
 * and sets itself anew if the instant has not come by that clock: a timer may fire a little early
 * against the wall clock, and a clock that stepped back (or a test's clock) has not reached it yet.
 */

/** The longest delay engines keep: a longer one overflows and fires at once. */
const MAX_DELAY_MS = 2 ** 31 - 1

export class ExpiryTimer {
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    private readonly clock: () => number,
    private readonly due: () => void,
  ) {}

  /** Calls `due` once the clock reaches `atMs` (epoch ms; `Infinity`: never), instead of the previous instant. */
  set(atMs: number): void {
    this.clear()
    if (atMs === Infinity) return
    const wait = atMs - this.clock()
    if (wait <= 0) return this.due()
    this.timer = setTimeout(() => this.set(atMs), Math.min(wait, MAX_DELAY_MS))
  }

  clear(): void {
    clearTimeout(this.timer)
    this.timer = undefined
  }
}
