/**
 * The per-store expiry index and the metadata store beside the data: names, and the key ranges
 * that select dead items for a set of cut-offs.
 */
import { INHERIT, OWN, type Cutoffs, type ExpiryMark } from './policy.js'

/** Object store holding one {@link StoreState} per TTL store, keyed by store name. */
export const META_STORE = '__idb_ttl_meta'
/** Name of the expiry index in each TTL store, and of the field it indexes. */
export const EXPIRY_INDEX = '$ttl'
export const MARK_FIELD = '$ttl'

/** Key ranges of the expiry index holding dead marks, inherit first; `from` resumes inside. */
export function deadRanges(cut: Cutoffs, from?: ExpiryMark): IDBKeyRange[] {
  const ranges: IDBKeyRange[] = []
  for (const kind of [INHERIT, OWN] as const) {
    const limit = kind === INHERIT ? cut.inherit : cut.own
    if (limit === null || (from && from[0] > kind)) continue
    const lower = from && from[0] === kind ? from[1] : -Infinity
    if (lower <= limit) ranges.push(IDBKeyRange.bound([kind, lower], [kind, limit]))
  }
  return ranges
}

/** Marks that are not dead yet: the lowest one of each kind tells when the next item dies. */
export function liveRanges(cut: Cutoffs): [IDBKeyRange, IDBKeyRange] {
  const above = (kind: number, limit: number | null) =>
    IDBKeyRange.bound([kind, limit ?? -Infinity], [kind, Infinity], limit !== null)
  return [above(INHERIT, cut.inherit), above(OWN, cut.own)]
}
