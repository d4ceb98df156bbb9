/**
 * The refusal of an option the library does not know, with the closest known name (`did you mean
 * defaultTtl?`): out of `known-options.ts`, whose check an open runs, so that `idb-ttl/core`'s
 * first load carries none of it (issue #44); an open's refusal gets it with `texts.ts`. The caller
 * names the options known, so that `db.live`'s check (in `idb-ttl`'s first load) carries no other
 * object's list.
 */
import { TtlError } from './errors.js'
import { unknownIn } from './open-options.js'

/**
 * @param where how the message names the object (`store "sessions"`, `purge`); `known`: the names it takes (`known-options.ts`)
 * @throws TtlError `INVALID_OPTION` naming the unknown option and the closest known one
 */
export function checkKnownOptions(where: string, options: object, known: readonly string[]): void {
  const name = unknownIn(options, known)
  if (name !== undefined) throw new TtlError('INVALID_OPTION', unknownOptionText(where, name, known))
}

/** The refusal of option `name` of an object that takes `known`, with the closest known name (an open's refusal: `texts.ts`). */
export function unknownOptionText(where: string, name: string, known: readonly string[]): string {
  const closest = closestName(name, known)
  const hint = closest ? `; did you mean ${closest}?` : `; known options: ${known.join(', ')}`
  return `${where}: unknown option ${JSON.stringify(name)}${hint}`
}

/** The known name nearest to `name` (case aside, then by edit distance), if near enough. */
function closestName(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase()
  const ranked = known.map((candidate) => ({ candidate, distance: editDistance(lower, candidate.toLowerCase()) }))
  ranked.sort((a, b) => a.distance - b.distance)
  const best = ranked[0]
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.candidate : undefined
}

function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]
}
