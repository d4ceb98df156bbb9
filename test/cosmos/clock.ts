/** A clock at real time plus an offset the test moves ahead (the server's `_ts` is real time). */
export function aheadClock() {
  let offset = 0
  const clock = () => Date.now() + offset
  clock.advance = (ms: number) => void (offset += ms)
  return clock
}
