/** The arguments of `db.transaction`, checked before anything opens. */
import { kindOf, TtlError } from '../rules/errors.js'

/**
 * The store names `stores` gives (one name, or an array of them).
 * @throws TtlError `INVALID_OPTION` naming what is wrong
 */
export function checkTransaction(stores: unknown, mode: unknown, callback: unknown): string[] {
  const names = typeof stores === 'string' ? [stores] : stores
  if (!Array.isArray(names) || names.length === 0 || names.some((name) => typeof name !== 'string')) {
    throw new TtlError('INVALID_OPTION', `db.transaction takes a store name or a non-empty array of them; got ${kindOf(stores)}`)
  }
  if (mode !== 'readonly' && mode !== 'readwrite') {
    throw new TtlError('INVALID_OPTION', `db.transaction's mode must be 'readonly' or 'readwrite'; got ${String(mode)}`)
  }
  if (typeof callback !== 'function') {
    throw new TtlError('INVALID_OPTION', `db.transaction needs a callback (tx) => …; got ${kindOf(callback)}`)
  }
  return [...new Set(names as string[])]
}
