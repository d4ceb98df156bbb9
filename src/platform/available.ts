/** Whether this environment has IndexedDB at all: not in Node or a server render, unless provided. */
import { refuse } from '../rules/refusal.js'

/**
 * Throws unless a global `indexedDB` exists; `call` of database `name` is what needed it.
 * @throws TtlError `UNSUPPORTED` saying where IndexedDB comes from in Node (`refuse`d: the open and `deleteTtlDB` explain it)
 */
export function requireIndexedDB(call: string, name: string): void {
  if (typeof indexedDB === 'undefined') throw refuse('UNSUPPORTED', 'indexedDB', call, name)
}
