/**
 * The ids Cosmos DB can store (its documented limits): a string of at most 1,023 bytes (UTF-8)
 * without `/`, `\`, `?` or `#`; not empty (the SDK replaces an empty id by a random one: a stray
 * item on the server, a second copy here), nor `.` or `..` (a point operation's URL ends in the
 * id, and a browser resolves those as path segments: the item cannot be read, replaced or deleted). A
 * mirrored store (`mirror: true`, or one `syncCosmos` was called on) refuses any other key at
 * write time, when the app can still be told, rather than queue a record every push would fail.
 */
import { formatKey, TtlError } from './errors.js'

const MAX_BYTES = 1023
const FORBIDDEN = /[/\\?#]/

/** @throws TtlError `INVALID_VALUE` for an id Cosmos DB cannot store */
export function checkId(store: string, key: IDBValidKey): void {
  const why = whyNot(key)
  if (why === undefined) return
  const shown = typeof key === 'string' && key.length > 60 ? `${JSON.stringify(key.slice(0, 60))}…` : formatKey(key)
  throw new TtlError('INVALID_VALUE', `store "${store}": id ${shown} ${why}: Cosmos DB cannot store it (the store is mirrored)`)
}

/** What keeps `key` from being a Cosmos DB id, if anything. */
function whyNot(key: IDBValidKey): string | undefined {
  if (typeof key !== 'string') return 'is not a string'
  if (key === '') return 'is empty'
  if (key === '.' || key === '..') return 'is a path segment (. or ..) that no point operation can address'
  if (FORBIDDEN.test(key)) return 'contains / \\ ? or #'
  if (new TextEncoder().encode(key).length > MAX_BYTES) return `is over ${MAX_BYTES} bytes`
  return undefined
}
