/** A clock at real time plus an offset the test moves ahead (the server's `_ts` is real time). */
export function aheadClock() {
  let offset = 0
  const clock = () => Date.now() + offset
  clock.advance = (ms: number) => void (offset += ms)
  return clock
}

/**
 * Real time passing without a sleep: `Date.now`, which the server stamps `_ts` from (it runs in
 * this process) and the local clock follows, moves ahead by `pass(ms)`, for everyone at once.
 * A history then has server writes in distinct seconds (which pulls' checkpoints and conflicts
 * turn on) without waiting for them.
 */
export const realTime = {
  now: Date.now,
  skew: 0,
  /** Set by `install({ still: true })`: the real instant time stood still at. */
  stillAt: undefined as number | undefined,
  /**
   * `still`: time moves only by `pass` (real time no longer leaks into the server's `_ts`, the
   * answers' `date` and the clocks: a history replays exactly, whatever the machine's load).
   */
  install({ still = false } = {}) {
    realTime.stillAt = still ? realTime.now() : undefined
    Date.now = () => (realTime.stillAt ?? realTime.now()) + realTime.skew
  },
  pass(ms: number) {
    realTime.skew += ms
  },
  /** Moves time ahead to the start of the next second (every history of a property then starts alike). */
  nextSecond() {
    realTime.pass(1000 - (Date.now() % 1000))
  },
  restore() {
    Date.now = realTime.now
    realTime.stillAt = undefined
  },
}
