/** Whether this environment has IndexedDB at all: not in Node or a server render, unless provided. */
import { TtlError } from '../rules/errors.js'

/**
 * Throws unless a global `indexedDB` exists; `call` names what needed it.
 * @throws TtlError `UNSUPPORTED` saying where IndexedDB comes from in Node
 */
export function requireIndexedDB(call: string): void {
  if (typeof indexedDB !== 'undefined') return
  throw new TtlError(
    'UNSUPPORTED',
    `${call} needs IndexedDB, and this environment has none (Node, or a server render): open the database in the browser. ` +
      "In Node (tests, scripts), install fake-indexeddb and import 'fake-indexeddb/auto' before idb-ttl.",
  )
}
