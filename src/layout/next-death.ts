/**
 * The live marks of the expiry index (`expiry-index.ts`), and when the first live item of a store
 * dies: for the purge (its next wake-up, eviction) and `stats()`, loaded with them, never by the
 * first load.
 */
import { markExpiryMs, OWN_BASE, type Cutoffs, type ExpiryMark, type StoreState } from '../rules/policy.js'
import { req } from '../platform/request.js'

/** Marks that are not dead yet: the lowest one of each kind tells when the next item dies. */
export function liveRanges(cut: Cutoffs): [IDBKeyRange, IDBKeyRange] {
  const inheritFrom = cut.inherit === null ? -Infinity : Math.floor(cut.inherit) + 1
  const ownFrom = cut.own === null ? OWN_BASE : OWN_BASE + Math.floor(cut.own) + 1
  return [IDBKeyRange.bound(inheritFrom, OWN_BASE, false, true), IDBKeyRange.lowerBound(ownFrom)]
}

/** When the first live item of the store dies (epoch ms), from the lowest live mark of each kind. */
export async function nextDeath(index: IDBIndex, state: StoreState, cut: Cutoffs): Promise<number> {
  const lowest = (range: IDBKeyRange) => req(index.openKeyCursor(range)).then((c) => c?.key as ExpiryMark | undefined)
  const marks = await Promise.all(liveRanges(cut).map(lowest))
  return Math.min(...marks.map((mark) => markExpiryMs(state, mark)))
}
