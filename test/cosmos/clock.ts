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
  install() {
    Date.now = () => realTime.now() + realTime.skew
  },
  pass(ms: number) {
    realTime.skew += ms
  },
  restore() {
    Date.now = realTime.now
  },
}
