/**
 * Turns a store's settings into cut-offs (workbox's "policy"): which expiry marks are dead now,
 * and what a change of `defaultTtl` leaves dead for good (the changed settings: `default-change.ts`).
 * Pure numbers, no IndexedDB.
 *
 * Every stored item carries an expiry mark, the key of the store's expiry index: its `_ts` when it
 * inherits the default, `OWN_BASE + _ts + ttl` when it has its own ttl in seconds, and none when
 * it never expires (own ttl -1). A change of default therefore rewrites nothing. Marks are whole
 * seconds, shared by the items of a second: in WebKit's in-memory backend (Safari's private
 * windows) each delete walks every distinct key of each index, so marks made unique (they once
 * had a random tiebreak) cost a purge of 10,000 of 50,000 items six minutes there instead of a
 * second (docs/benchmarks.md).
 */
import type { Capacity } from './capacity.js'
import type { DefaultTtl, ItemTtl } from './ttl.js'

/** Expiry-index key: whole seconds; inheriting marks lie below `OWN_BASE`. Stores written before may hold fractions. */
export type ExpiryMark = number

/** Marks of items with their own ttl start here (epoch seconds stay far below it). */
export const OWN_BASE = 1e11

/** What the metadata store keeps per object store. */
export interface StoreState {
  /** The default in force. */
  defaultTtl: DefaultTtl
  /** The default last declared in `openTtlDB`'s `stores`, to notice a changed declaration. */
  declared: DefaultTtl
  /** Inheriting items with `_ts <=` this (seconds) are dead whatever the default says now. */
  deadTs: number | null
  /** Items with their own ttl whose expiry is `<=` this (seconds) are dead for good. */
  deadExpiry: number | null
  /** The capacity last declared (SPEC §9), for whichever tab purges; absent: none. */
  capacity?: Capacity
  /**
   * Declared `mirror: true` (SPEC §12b): every handle's writes of the store are queued for the
   * server, and a handle that cannot queue them (`idb-ttl/core`) refuses them. Absent: not mirrored
   * (and in settings idb-ttl 0.1.0 wrote: the next open of a full handle that declares it writes it).
   */
  mirror?: true
  /**
   * Declared `keepExpired` (SPEC §15): seconds an expired item stays on disk for the stale reads
   * before the purge deletes it (`grace.ts`). Absent: none, and the purge deletes what is dead.
   */
  keepExpired?: number
  /**
   * With `keepExpired` only: when (epoch ms) the default last changed, or the grace was declared:
   * the expiry instant of the items a change killed or kept dead (`grace.ts` `expiredAt`).
   */
  changedAt?: number
}

/** Marks at or below these values (seconds) are dead; `null`: none of that kind is. */
export interface Cutoffs {
  inherit: number | null
  own: number | null
}

export function markOf(ttl: ItemTtl, ts: number): ExpiryMark | undefined {
  if (ttl.kind === 'never') return undefined
  return ttl.kind === 'seconds' ? OWN_BASE + ts + ttl.seconds : ts
}

/**
 * The lowest `_ts` (whole seconds) at which an item with this ttl is not already dead under the
 * watermarks: a write stamped at least this is never born dead (SPEC §6).
 */
export function lowestLiveTs(state: Pick<StoreState, 'deadTs' | 'deadExpiry'>, ttl: ItemTtl): number {
  if (ttl.kind === 'never') return -Infinity
  const watermark = ttl.kind === 'inherit' ? state.deadTs : state.deadExpiry
  if (watermark === null) return -Infinity
  return Math.floor(watermark) + 1 - (ttl.kind === 'seconds' ? ttl.seconds : 0)
}

/** What a mark stands for: an inheriting item's `_ts`, or an own-ttl item's expiry (seconds). */
export function readMark(mark: ExpiryMark): { inherits: boolean; seconds: number } {
  return mark < OWN_BASE
    ? { inherits: true, seconds: Math.floor(mark) }
    : { inherits: false, seconds: Math.floor(mark - OWN_BASE) }
}

/** The higher of two watermarks (or cutoffs), `null` being none. */
export function higher(a: number | null, b: number | null): number | null {
  if (a === null) return b
  return b === null ? a : Math.max(a, b)
}

/** The cut-offs in force at `nowMs` (epoch ms): the live rule joined with the watermarks. */
export function cutoffs(state: StoreState, nowMs: number): Cutoffs {
  const now = nowMs / 1000
  const d = state.defaultTtl
  return {
    inherit: higher(state.deadTs, d !== null && d > 0 ? now - d : null),
    own: higher(state.deadExpiry, d !== null ? now : null),
  }
}

export function isDeadMark(mark: ExpiryMark | undefined, cut: Cutoffs): boolean {
  if (mark === undefined) return false
  const { inherits, seconds } = readMark(mark)
  const limit = inherits ? cut.inherit : cut.own
  return limit !== null && seconds <= limit
}

/**
 * When a live item with this mark dies under the settings in force (epoch ms); `Infinity` when
 * it never will. Watermarks only kill what is already dead, so a live item dies by the default.
 */
export function markExpiryMs(state: StoreState, mark: ExpiryMark | undefined): number {
  if (mark === undefined || state.defaultTtl === null) return Infinity
  const { inherits, seconds } = readMark(mark)
  if (!inherits) return seconds * 1000
  return state.defaultTtl > 0 ? (seconds + state.defaultTtl) * 1000 : Infinity
}
