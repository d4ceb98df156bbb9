/**
 * What the library's own mechanisms above the handle (the Cosmos DB mirror, `idb-ttl/cosmos`)
 * reach through a handle: its transactions with options the public call does not offer, and
 * its write observers. Not part of the public API.
 */
import { TtlError } from '../rules/errors.js'
import type { DefaultTtl } from '../rules/ttl.js'
import type { setDefaultTtl } from '../writes/default-ttl.js'
import type { storedDefaultTtl } from '../reads/more-reads.js'
import type { WriteObserver } from '../transaction/observers.js'
import type { Transaction } from '../transaction/transaction.js'
import type { Internal, Routes } from './routes.js'

export type { WriteObserver } from '../transaction/observers.js'
export type { Transaction } from '../transaction/transaction.js'

/** The work of `getDefaultTtl` and `setDefaultTtl`, as the handle's entry loads it (`assembly/calls.ts`: at the first). */
export type LoadDefaults = () => Promise<{ storedDefaultTtl: typeof storedDefaultTtl; setDefaultTtl: typeof setDefaultTtl }>

const routes = new WeakMap<object, { route: Routes; defaults: LoadDefaults }>()

/** Makes `handle` reachable here (the handle's constructor calls it). */
export function register(handle: object, route: Routes, defaults: LoadDefaults): void {
  routes.set(handle, { route, defaults })
}

function registered(handle: object): { route: Routes; defaults: LoadDefaults } {
  const found = routes.get(handle)
  if (!found) throw new TtlError('INVALID_OPTION', 'expected a handle returned by openTtlDB')
  return found
}

function routeOf(handle: object): Routes {
  return registered(handle).route
}

/**
 * From now on, every write of `store` through `handle` (its calls and its transactions) runs in
 * a transaction that also holds `observer.stores`, and tells `observer` inside it. Returns a
 * function that stops it.
 */
export function observeWrites(handle: object, store: string, observer: WriteObserver): () => void {
  const route = routeOf(handle)
  route.check(store)
  return route.observers.add(store, observer)
}

/** `db.transaction` with the library's own options (see {@link Internal}). */
export function transactionOf<T>(
  handle: object,
  stores: readonly string[],
  mode: 'readonly' | 'readwrite',
  callback: (tx: Transaction) => T | Promise<T>,
  internal: Internal = {},
): Promise<T> {
  return routeOf(handle).transact(stores, mode === 'readwrite', callback, internal)
}

/** The database's name, its declared stores, how it takes item `ttl`s, the handle's clock and its native connection. */
export function partsOf(handle: object) {
  const { name, stores, mode, clock, connection } = routeOf(handle).options
  return { name, stores, mode, clock, native: () => connection.native() }
}

/**
 * The default of `store` (`getDefaultTtl`), read by the Cosmos DB mirror's rounds: past the
 * store's gate, whose change of scope waits for the round's Web Lock (`Routes.gate`).
 */
export function defaultTtlOf(handle: object, store: string): Promise<DefaultTtl> {
  const { route, defaults } = registered(handle)
  return defaults().then(({ storedDefaultTtl }) => route.db(store, false).then((db) => storedDefaultTtl(db, store)))
}

/**
 * Sets the default of `store` to its server's (the Cosmos DB mirror, in a round): as
 * `setDefaultTtl`, but what the old setting killed is judged by the new one (`rules/policy.ts`
 * `followDefault`); past the store's gate, as {@link defaultTtlOf}.
 */
export function followDefaultTtl(handle: object, store: string, defaultTtl: DefaultTtl): Promise<void> {
  const { route, defaults } = registered(handle)
  return defaults().then(({ setDefaultTtl }) => route.changeSettings(store, (ctx) => setDefaultTtl(ctx, store, defaultTtl, true), false))
}

/** Calls of `store` through `handle` wait for `until` to settle (see `Routes.gate`). */
export function gateStore(handle: object, store: string, until: Promise<unknown>): void {
  routeOf(handle).gate(store, until)
}
