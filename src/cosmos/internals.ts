/**
 * What the mirror needs of a handle beyond its public methods: the database's name, the store's
 * declaration, the connection's clock and native connection. The handle keeps them behind its
 * routes; this is the one place that reaches in.
 */
import type { TtlDB } from '../db.js'
import type { Routes } from '../handle/routes.js'
import type { StoreConfig } from '../rules/types.js'

export interface Internals {
  name: string
  config: StoreConfig | undefined
  clock: () => number
  native: () => Promise<IDBDatabase>
}

export function internalsOf(db: TtlDB<any>, store: string): Internals {
  const route = (db as unknown as { route: Routes }).route
  const { name, stores, clock, connection } = route.options
  return { name, config: Object.hasOwn(stores, store) ? stores[store] : undefined, clock, native: () => connection.native() }
}
