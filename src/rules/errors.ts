/**
 * Why a request was refused. Errors that cross the worker boundary lose `instanceof`, so callers
 * should test `err.name === 'TtlError'` and `err.code`.
 */
export type TtlErrorCode =
  /** A `defaultTtl` or item `ttl` that is not null, -1 or an integer 1 … 2147483647. */
  | 'INVALID_TTL'
  /** A store name that was not declared in `openTtlDB`'s `stores`. */
  | 'UNKNOWN_STORE'
  /** An index name the store does not have, or one of the library's own. */
  | 'UNKNOWN_INDEX'
  /** A value that cannot carry `_ts`: not a plain object; in a store mirrored by `idb-ttl/cosmos`, an id Cosmos DB cannot store. */
  | 'INVALID_VALUE'
  /** `update` or `touch` of a key with no live item. */
  | 'NOT_FOUND'
  /** An option of `openTtlDB` (or `onExpire`) that is missing or malformed. */
  | 'INVALID_OPTION'
  /** The database on disk lacks a declared store; open it with a higher `version`. */
  | 'SCHEMA_MISMATCH'
  /** A call in `db.transaction` made after IndexedDB ended the transaction (the callback awaited something else). */
  | 'TRANSACTION_INACTIVE'
  /** A request the library cannot carry out as asked (a store with `evictOnQuota` in a transaction; no IndexedDB in Node). */
  | 'UNSUPPORTED'
  /** The handle was closed with `close()`. */
  | 'CLOSED'

/** The library's own error: a `name` of `'TtlError'` and a machine-readable `code`. */
export class TtlError extends Error {
  readonly code: TtlErrorCode

  constructor(code: TtlErrorCode, message: string) {
    super(message)
    this.name = 'TtlError'
    this.code = code
  }
}

/** A key as messages show it: strings quoted, so `"1"` and `1` differ. */
export function formatKey(key: unknown): string {
  if (typeof key === 'string') return JSON.stringify(key)
  if (key instanceof Date) return `Date(${key.toISOString()})`
  if (Array.isArray(key)) return `[${key.map(formatKey).join(', ')}]`
  if (key instanceof ArrayBuffer || ArrayBuffer.isView(key)) return 'a binary key'
  return String(key)
}

/** What a value is, for messages: `undefined`, `null`, `an array`, `a Date`, `a string`… */
export function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  const kind = typeof value === 'object' ? Object.prototype.toString.call(value).slice(8, -1) : typeof value
  return `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind}`
}

/** An error as purge reports carry it (and as it crosses the worker boundary): name and message. */
export function describeError(error: unknown): { name: string; message: string } {
  const { name = 'Error', message = String(error) } = (error ?? {}) as Error
  return { name, message }
}
