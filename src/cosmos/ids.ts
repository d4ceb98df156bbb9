/**
 * The ids Cosmos DB can store (its documented limits): a string of at most 1,023 bytes (UTF-8)
 * without `/`, `\`, `?` or `#`. A mirrored store refuses any other key at write time, when the
 * app can still be told, rather than queue a record every push would fail.
 */
import { formatKey, TtlError } from '../rules/errors.js'

const MAX_BYTES = 1023
const FORBIDDEN = /[/\\?#]/

/** @throws TtlError `INVALID_VALUE` for an id Cosmos DB cannot store */
export function checkId(store: string, key: IDBValidKey): void {
  const why =
    typeof key !== 'string'
      ? 'is not a string'
      : FORBIDDEN.test(key)
        ? 'contains / \\ ? or #'
        : new TextEncoder().encode(key).length > MAX_BYTES
          ? `is over ${MAX_BYTES} bytes`
          : undefined
  if (why === undefined) return
  const shown = typeof key === 'string' && key.length > 60 ? `${JSON.stringify(key.slice(0, 60))}…` : formatKey(key)
  throw new TtlError('INVALID_VALUE', `store "${store}": id ${shown} ${why}: Cosmos DB cannot store it (the store is mirrored)`)
}
