/**
 * What the mirror needs of a handle beyond its public methods: the database's name, the store's
 * declaration, how the database takes item `ttl`s, the connection's clock and native
 * connection, through `handle/internal.ts`.
 */
import type { TtlDB } from '../assembly/db.js'
import { partsOf } from '../handle/internal.js'
import type { TtlValues } from '../rules/ttl.js'
import type { StoreConfig } from '../rules/types.js'

export interface Internals {
  name: string
  config: StoreConfig | undefined
  mode: TtlValues
  clock: () => number
  native: () => Promise<IDBDatabase>
}

export function internalsOf(db: TtlDB<any>, store: string): Internals {
  const { name, stores, mode, clock, native } = partsOf(db)
  return { name, config: Object.hasOwn(stores, store) ? stores[store] : undefined, mode, clock, native }
}
