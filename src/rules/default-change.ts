/**
 * The settings a store starts with, and those a change of its default leaves (SPEC §3): loaded
 * with what changes a default (`writes/default-ttl.ts`, `layout/redeclare.ts`) and the schema work
 * of an upgrade, never by the first load.
 */
import { cutoffs, type StoreState } from './policy.js'
import type { DefaultTtl } from './ttl.js'

/** The settings of a store declared for the first time with `defaultTtl`. */
export function initialState(defaultTtl: DefaultTtl): StoreState {
  return { defaultTtl, declared: defaultTtl, deadTs: null, deadExpiry: null }
}

/**
 * The state after switching to `defaultTtl` at `nowMs`: what the old setting had killed by now
 * is folded into the watermarks, so it stays dead under the new one (SPEC §3).
 */
export function changeDefault(state: StoreState, defaultTtl: DefaultTtl, nowMs: number): StoreState {
  const cut = cutoffs(state, nowMs)
  const next = { ...state, defaultTtl, deadTs: cut.inherit, deadExpiry: cut.own }
  if (state.keepExpired) next.changedAt = nowMs
  return next
}

/**
 * The state of a store that follows a server's setting (a Cosmos DB mirror, SPEC §12b): the
 * server judges every item by the setting it has now, so no watermark keeps what the old one
 * killed dead (an item the server still holds is live again under a longer TTL).
 */
export function followDefault(state: StoreState, defaultTtl: DefaultTtl): StoreState {
  return { ...state, defaultTtl, deadTs: null, deadExpiry: null }
}
