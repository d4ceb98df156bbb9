/**
 * `idb-ttl/svelte`: live queries (`db.live`, SPEC §11) as Svelte stores, for `$store` in Svelte 5
 * components and for runes through `fromStore` (docs/frameworks.md). Svelte is an optional peer of
 * the package.
 */
import { readable, type Readable } from 'svelte/store'
import type { IndexNames, StoreNames } from 'idb'
import type { DBSchema } from './index.js'
import { follow, report } from './bindings/follow.js'
import type { LiveHandle, LiveItems, LiveQueryOptions, StaleItems, StaleQueryOptions } from './bindings/types.js'

export type { LiveHandle, LiveItems, LiveQueryOptions, StaleItems, StaleQueryOptions } from './bindings/types.js'

/**
 * A readable store of the live items of `store` (as `db.live(store, options)` emits them),
 * `undefined` before the first result. `db` may be the promise `openTtlDB` returned. It subscribes
 * to the live query while it has subscribers, and starts from `undefined` each time. For parameters
 * that change, make a new store from them (`$derived(live(db, 'sessions', { query: user }))`).
 * @throws TtlError from `db.live`, at the first subscription (an unknown store, bad options); a
 *   failed reading or open is thrown in a microtask, as a live query's own subscriber errors are
 */
export function live<S extends DBSchema | unknown, N extends StoreNames<S>, I extends IndexNames<S, N> = never>(
  db: LiveHandle<S>,
  store: N,
  options?: LiveQueryOptions<S, N, I>,
): Readable<LiveItems<S, N> | undefined> {
  return following(db, store, options) as Readable<LiveItems<S, N> | undefined>
}

/**
 * A readable store of the stale items of `store` (a store with `keepExpired`, docs/stale.md), as
 * `db.getAllStale(store, options?.query)` gives them (`{ key, value, expiredAt }`), read again each
 * time `live(db, store, options)` would change: an item expiring leaves one list and joins this
 * one at that instant. Subscriptions and errors as `live`'s.
 */
export function stale<S extends DBSchema | unknown, N extends StoreNames<S>>(db: LiveHandle<S>, store: N, options?: StaleQueryOptions<S, N>): Readable<StaleItems<S, N> | undefined> {
  return following(db, store, options, true) as Readable<StaleItems<S, N> | undefined>
}

function following(db: LiveHandle<any>, store: string, options: object | undefined, stale?: boolean): Readable<unknown[] | undefined> {
  return readable<unknown[] | undefined>(undefined, (set) => {
    // A store that stopped keeps its last value: items that may have expired since.
    set(undefined)
    return follow(db, store, options, set, report, stale)
  })
}
