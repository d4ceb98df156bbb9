/**
 * The types the three bindings share: what they take (a handle or a promise of one, `db.live`'s
 * options) and what they give (the live items, typed from the database's schema as `db.live`'s).
 */
import type { IndexNames, StoreKey, StoreNames, StoreValue } from 'idb'
import type { DBSchema, IndexQuery, LiveOptions, Query, Stamped, StaleEntry, TtlDB } from '../index.js'

/** A handle, or the promise `openTtlDB` returned (the bindings subscribe once it resolves). */
export type LiveHandle<S extends DBSchema | unknown> = TtlDB<S> | PromiseLike<TtlDB<S>>

/**
 * `db.live`'s options for `store` (and `index`, when given): an option `db.live` gains reaches the
 * bindings unchanged, since they pass the object through and compare it by value.
 */
export type LiveQueryOptions<S extends DBSchema | unknown, N extends StoreNames<S>, I extends IndexNames<S, N> = never> = LiveOptions<
  [I] extends [never] ? Query<S, N> : IndexQuery<S, N, I>
> & { index?: I }

/** The live items of `store`, as `db.live(store)` emits them. */
export type LiveItems<S extends DBSchema | unknown, N extends StoreNames<S>> = Stamped<StoreValue<S, N>>[]

/** What the stale bindings take: the primary keys to read, a key or a key range (every one without), as `db.getAllStale`'s. */
export interface StaleQueryOptions<S extends DBSchema | unknown, N extends StoreNames<S>> {
  query?: Query<S, N>
}

/** The stale items of `store` (a store with `keepExpired`), as `db.getAllStale(store)` gives them: `{ key, value, expiredAt }`. */
export type StaleItems<S extends DBSchema | unknown, N extends StoreNames<S>> = StaleEntry<StoreKey<S, N>, Stamped<StoreValue<S, N>>>[]
