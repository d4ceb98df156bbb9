/**
 * A connection's clock (SPEC §6). Wall clocks step back (NTP, a user, a laptop waking up); a
 * connection's `now` is the largest value its clock has given, so a read never returns an item
 * that an earlier read of the same connection found expired. A step back delays expiry by at
 * most the size of the step.
 */

import { refuse } from './refusal.js'

/**
 * The `clock` option, or `Date.now` when it is absent, read once here: every expiry is judged by
 * it, so anything but a function giving a finite number fails now, naming the option, not later
 * inside a transaction.
 * @throws TtlError `INVALID_OPTION` naming `clock` and what it is or gave (`refuse`d: an open explains it)
 */
export function checkClock(clock: unknown = Date.now): () => number {
  const now: unknown = typeof clock === 'function' ? clock() : undefined
  if (typeof now !== 'number' || !Number.isFinite(now)) throw refuse('INVALID_OPTION', 'clock', clock, now)
  return clock as () => number
}

/** Wraps `clock` (epoch ms) so that it never runs backwards. */
export function monotonic(clock: () => number): () => number {
  let latest = -Infinity
  return () => (latest = Math.max(latest, clock()))
}
