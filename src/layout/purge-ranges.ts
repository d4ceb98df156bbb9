/**
 * Ranges of the expiry index (`expiry-index.ts`) that only the purge walks: where a pass resumes
 * past a mark it took whole, and the stale marks of a store with a grace. Loaded with the purge.
 */
import { deadRanges } from './expiry-index.js'
import { liveRanges } from './next-death.js'
import type { Cutoffs, ExpiryMark } from '../rules/policy.js'

/**
 * The least number above `mark` (its next float64): where a pass resumes once a batch took every
 * item of `mark`. A closed bound there is the open bound past `mark`, and the engine seeks to it
 * rather than stepping over the entries of `mark`, which in Chromium include every deleted one.
 */
export function markAbove(mark: ExpiryMark): ExpiryMark {
  const number = new Float64Array([mark])
  const bits = new BigInt64Array(number.buffer)
  // A float64's bits, read as an integer, step through its values (downwards below zero).
  bits[0] = mark > 0 ? bits[0] + 1n : mark < 0 ? bits[0] - 1n : 1n
  return number[0]
}

/**
 * Marks dead under `cut` but not under `kept` (lower cut-offs): the stale items of a store with a
 * grace, `kept` being what its purge keeps (`rules/grace.ts` `purgeCutoffs`).
 */
export function staleRanges(kept: Cutoffs, cut: Cutoffs): IDBKeyRange[] {
  const [inherit, own] = liveRanges(kept)
  const ranges = deadRanges(cut, { inherit: inherit.lower as number, own: own.lower as number })
  return [ranges.inherit, ranges.own].filter((range) => range !== undefined)
}
