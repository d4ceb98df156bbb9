/**
 * The per-store expiry index and the metadata store beside the data: names, and the key ranges
 * that select dead items for a set of cut-offs (the live ones: `next-death.ts`; those only the purge
 * walks: `purge-ranges.ts`).
 */
import { OWN_BASE, type Cutoffs, type ExpiryMark, type StoreState } from '../rules/policy.js'

/** Object store holding one {@link StoreState} per TTL store, keyed by store name. */
export const META_STORE = '__idb_ttl_meta'
/**
 * Object store of the expiry events a purge deleted and has not yet known to be published,
 * written in the deleting transaction (`purge/journal.ts`). Databases created before it existed
 * lack it until their next upgrade; their purges then publish without it.
 */
export const JOURNAL_STORE = '__idb_ttl_journal'
/** Name of the expiry index in each TTL store, and of the field it indexes. */
export const EXPIRY_INDEX = '$ttl'
export const MARK_FIELD = '$ttl'

/**
 * Where a purge pass stands in each dead range: the last mark a batch took there. The items of a
 * second share their mark, so a batch resumes at the mark itself: it never skips a tied item,
 * and rescans only the entries of that one second that earlier batches deleted; a batch that
 * took every item of its last mark resumes just above it (`markAbove`, `purge-ranges.ts`). Each range keeps
 * its own place: a pass that has moved on to the own-ttl range still revisits the inheriting
 * range, where more items die as time goes on.
 */
export interface Resume {
  inherit?: ExpiryMark
  own?: ExpiryMark
}

/** The inheriting and own-ttl ranges of the expiry index holding dead marks, from `from` on. */
export function deadRanges(cut: Cutoffs, from: Resume = {}): { inherit?: IDBKeyRange; own?: IDBKeyRange } {
  const range = (lower: number, upper: number) => (lower < upper ? IDBKeyRange.bound(lower, upper, false, true) : undefined)
  return {
    inherit: cut.inherit === null ? undefined : range(from.inherit ?? -Infinity, Math.floor(cut.inherit) + 1),
    own: cut.own === null ? undefined : range(from.own ?? OWN_BASE, OWN_BASE + Math.floor(cut.own) + 1),
  }
}

/** Both dead ranges, for reads that count or list every dead item. */
export function allDeadRanges(cut: Cutoffs): IDBKeyRange[] {
  const { inherit, own } = deadRanges(cut)
  return [inherit, own].filter((range) => range !== undefined)
}
