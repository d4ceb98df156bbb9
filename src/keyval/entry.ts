/**
 * The on-disk form of an entry (docs/keyval.md, "On disk"). A value that never expires is stored
 * as it is, exactly as idb-keyval stores it, so that either library reads what the other wrote. A
 * value that expires is stored as `{ 'idb-ttl': expiresAtMs, v: value }`. A value that never
 * expires but is itself an object whose `'idb-ttl'` is a number is stored wrapped with `Infinity`,
 * so that nothing this entry writes is ever misread.
 */

/** The field that marks a wrapped entry; its value is the expiry instant, epoch ms. */
const FIELD = 'idb-ttl'

/** A stored entry that carries an expiry. */
export interface Wrapped {
  [FIELD]: number
  v: unknown
}

/**
 * The expiry (epoch ms) a stored entry carries, or `undefined` for a plain value, which never
 * expires: anything but an object whose `'idb-ttl'` is a number.
 */
export function expiryOf(stored: unknown): number | undefined {
  const expiry = typeof stored == 'object' && stored !== null ? (stored as Partial<Wrapped>)[FIELD] : undefined
  return typeof expiry == 'number' ? expiry : undefined
}

/** What to store for `value` expiring at `expiresAtMs` (`Infinity`: never). */
export function wrap(value: unknown, expiresAtMs: number): unknown {
  return expiresAtMs < Infinity || expiryOf(value) !== undefined ? ({ [FIELD]: expiresAtMs, v: value } satisfies Wrapped) : value
}
