/**
 * Options objects are checked for names the library does not know: in plain JavaScript a
 * misspelled option (`defaultTTL`) would otherwise be ignored, and TTL silently stay off.
 */
import { TtlError } from './errors.js'

/** The options each object of `openTtlDB` (and of `db.live`) takes, by where it appears. */
export const KNOWN_OPTIONS = {
  openTtlDB: ['version', 'stores', 'clock', 'purge', 'ttlValues', 'durability', 'upgrade', 'bucket', 'onLost'],
  store: ['keyPath', 'autoIncrement', 'defaultTtl', 'indexes', 'keepTs', 'mirror', 'touchOnRead', 'maxEntries', 'evict', 'evictOnQuota', 'keepExpired'],
  index: ['keyPath', 'unique', 'multiEntry'],
  purge: ['mode', 'batchSize', 'sliceMs', 'maxIntervalMs', 'idleTimeoutMs'],
  live: ['index', 'query', 'count'],
  bucket: ['name', 'persisted', 'durability', 'quota', 'expires', 'expiresAfterItems'],
} as const

/**
 * @param where how the message names the object (`store "sessions"`, `purge`)
 * @throws TtlError `INVALID_OPTION` naming the unknown option and the closest known one
 */
export function checkKnownOptions(where: string, options: object, kind: keyof typeof KNOWN_OPTIONS): void {
  const known: readonly string[] = KNOWN_OPTIONS[kind]
  for (const name of Object.keys(options)) {
    if (known.includes(name)) continue
    const closest = closestName(name, known)
    const hint = closest ? `; did you mean ${closest}?` : `; known options: ${known.join(', ')}`
    throw new TtlError('INVALID_OPTION', `${where}: unknown option ${JSON.stringify(name)}${hint}`)
  }
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
