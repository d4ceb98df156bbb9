/** The arguments of `db.transaction`, checked before anything opens. */
import { refuse } from '../rules/refusal.js'

/**
 * The store names `stores` gives (one name, or an array of them).
 * @throws TtlError `INVALID_OPTION` naming what is wrong (`refuse`d: the handle explains it)
 */
export function checkTransaction(stores: unknown, mode: unknown, callback: unknown): string[] {
  const names = typeof stores === 'string' ? [stores] : stores
  if (!Array.isArray(names) || names.length === 0 || names.some((name) => typeof name !== 'string')) {
    throw refuse('INVALID_OPTION', 'transactionStores', stores)
  }
  if (mode !== 'readonly' && mode !== 'readwrite') {
    throw refuse('INVALID_OPTION', 'transactionMode', mode)
  }
  if (typeof callback !== 'function') {
    throw refuse('INVALID_OPTION', 'transactionCallback', callback)
  }
  return [...new Set(names as string[])]
}
