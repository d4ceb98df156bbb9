/**
 * What the entry keeps per store beyond idb-keyval: the store's `defaultTtl` and clock (declared by
 * `createStore`; any other `UseStore`, such as a custom one written for idb-keyval, gets the
 * defaults on first use) and where its purge stands (purge.ts).
 */
import { checkDefaultTtl } from '../rules/resolver.js'
import type { DefaultTtl } from '../rules/ttl.js'
import type { StoreOptions, UseStore } from './types.js'

export interface State {
  defaultTtl: DefaultTtl
  clock: () => number
  /** The largest clock value used: within a store, time never runs backwards (SPEC §6). */
  last: number
  /** When the purge next looks at the store, epoch ms by its clock; `Infinity`: not before asked. */
  next: number
  timer?: ReturnType<typeof setTimeout>
  /**
   * While a purge round is under way, the last key it read (`null` before its first batch); what
   * is asked meanwhile is kept in `next`, for the round after. `undefined`: no round is under way.
   */
  after?: IDBValidKey | null
  /**
   * The IndexedDB of the store's connection, kept with the store: Chromium stalls every
   * transaction of a connection, for good, once the Storage Bucket it came from is garbage collected.
   */
  idb?: IDBFactory
}

/** Where a store keeps its state: on the function itself (a custom store too), lighter than a WeakMap. */
const STATE = 'idb-ttl'

type Stateful = UseStore & { [STATE]?: State }

/**
 * Records `use`'s options (`where` names it in an error).
 * @throws TtlError `INVALID_TTL` for a bad `defaultTtl`
 */
export function declare(use: UseStore, where: string, { defaultTtl, clock = Date.now }: StoreOptions = {}): State {
  // Absent, the store behaves as idb-keyval's and an entry given a `ttl` still expires: -1.
  return ((use as Stateful)[STATE] = { defaultTtl: defaultTtl === undefined ? -1 : checkDefaultTtl(defaultTtl, where), clock, last: 0, next: Infinity })
}

/** `use`'s state. */
export function stateOf(use: UseStore): State {
  return (use as Stateful)[STATE] ?? declare(use, '')
}

/** The store's `now`, epoch ms: its clock, never less than a value it gave before. */
export function nowOf(state: State): number {
  return (state.last = Math.max(state.last, state.clock()))
}
