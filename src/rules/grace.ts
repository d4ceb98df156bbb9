/**
 * The grace of a store that keeps expired items (`keepExpired`, SPEC §15): how long an expired
 * item stays on disk, readable by the stale reads alone, before the purge deletes it. Pure
 * numbers, no IndexedDB. Stores without a grace are judged by `policy.ts` alone, as before.
 *
 * An item's expiry instant (`expiredAt`, epoch ms) is the one its mark gives under the settings in
 * force, unless a change of setting (`StoreState.changedAt`) killed it or kept it dead: then it is
 * the instant of that change, the latest the item can have left the reads (which item a change
 * killed, and when, is not kept: SPEC §3 keeps it in constant space). The purge deletes an item
 * once `expiredAt + grace` has passed, which over the expiry index is: nothing while the last change
 * is younger than the grace, and otherwise what was dead a grace ago ({@link purgeCutoffs}).
 */
import { cutoffs, isDeadMark, markExpiryMs, type Cutoffs, type ExpiryMark, type StoreState } from './policy.js'

/** The grace of `state`'s store, in ms (0: none). */
const graceMs = (state: StoreState) => (state.keepExpired ?? 0) * 1000

/**
 * The cut-offs of what the purge deletes at `nowMs`: the items whose grace has ended (the dead
 * ones, in a store without a grace); with `stale`, every dead item (quota relief: SPEC §9).
 */
export function purgeCutoffs(state: StoreState, nowMs: number, stale = false): Cutoffs {
  const grace = stale ? 0 : graceMs(state)
  if (grace === 0) return cutoffs(state, nowMs)
  return (state.changedAt ?? -Infinity) + grace > nowMs ? { inherit: null, own: null } : cutoffs(state, nowMs - grace)
}

/**
 * When the purge next has an item to delete (epoch ms), `deathMs` being when the first item it
 * keeps at `nowMs` dies ({@link purgeCutoffs}'s live ranges): while the last change is younger
 * than the grace, when it no longer is; else that death plus the grace.
 */
export function graceEnd(state: StoreState, nowMs: number, deathMs: number): number {
  const grace = graceMs(state)
  const changed = (state.changedAt ?? -Infinity) + grace
  return grace === 0 ? deathMs : changed > nowMs ? changed : deathMs + grace
}

/**
 * The instant (epoch ms) a dead item with `mark` left the reads (see the top). The change's instant
 * may be ahead of a connection whose clock is behind the one that made it: the grace counts from it.
 */
export function expiredAt(state: StoreState, mark: ExpiryMark | undefined): number {
  const natural = markExpiryMs(state, mark)
  const changed = state.changedAt
  if (changed === undefined) return natural
  const killed = isDeadMark(mark, { inherit: state.deadTs, own: state.deadExpiry }) || natural < changed
  return killed ? changed : natural
}
