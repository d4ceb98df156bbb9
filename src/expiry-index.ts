/**
 * The per-store expiry index and the metadata store beside the data: names, and the key ranges
 * that select dead items for a set of cut-offs.
 */
import { OWN_BASE, type Cutoffs, type ExpiryMark } from './policy.js'

/** Object store holding one {@link StoreState} per TTL store, keyed by store name. */
export const META_STORE = '__idb_ttl_meta'
/** Name of the expiry index in each TTL store, and of the field it indexes. */
export const EXPIRY_INDEX = '$ttl'
export const MARK_FIELD = '$ttl'

/**
 * Key ranges of the expiry index holding dead marks, inheriting ones first; `from` (the last
 * mark a previous batch took) resumes there. Marks are unique but for rare ties, so starting at
 * `from` itself rescans one deleted entry and never skips a tied one.
 */
export function deadRanges(cut: Cutoffs, from?: ExpiryMark): IDBKeyRange[] {
  const ranges: IDBKeyRange[] = []
  const push = (lower: number, upper: number) => {
    if (lower < upper) ranges.push(IDBKeyRange.bound(lower, upper, false, true))
  }
  const resumeOwn = from !== undefined && from >= OWN_BASE
  if (cut.inherit !== null && !resumeOwn) push(from ?? -Infinity, Math.floor(cut.inherit) + 1)
  if (cut.own !== null) push(resumeOwn ? from : OWN_BASE, OWN_BASE + Math.floor(cut.own) + 1)
  return ranges
}

/** Marks that are not dead yet: the lowest one of each kind tells when the next item dies. */
export function liveRanges(cut: Cutoffs): [IDBKeyRange, IDBKeyRange] {
  const inheritFrom = cut.inherit === null ? -Infinity : Math.floor(cut.inherit) + 1
  const ownFrom = cut.own === null ? OWN_BASE : OWN_BASE + Math.floor(cut.own) + 1
  return [IDBKeyRange.bound(inheritFrom, OWN_BASE, false, true), IDBKeyRange.lowerBound(ownFrom)]
}
