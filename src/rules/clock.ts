/**
 * A connection's clock (SPEC §6). Wall clocks step back (NTP, a user, a laptop waking up); a
 * connection's `now` is the largest value its clock has given, so a read never returns an item
 * that an earlier read of the same connection found expired. A step back delays expiry by at
 * most the size of the step.
 */

/** Wraps `clock` (epoch ms) so that it never runs backwards. */
export function monotonic(clock: () => number): () => number {
  let latest = -Infinity
  return () => (latest = Math.max(latest, clock()))
}
