/**
 * `idb-ttl/react`: live queries (`db.live`, SPEC §11) as React hooks, through
 * `useSyncExternalStore`, so that concurrent rendering never shows two results at once
 * (docs/frameworks.md). React is an optional peer of the package.
 */
import { useMemo, useRef, useSyncExternalStore } from 'react'
import type { IndexNames, StoreKey, StoreNames, StoreValue } from 'idb'
import type { DBSchema, Stamped } from './index.js'
import { follow } from './bindings/follow.js'
import { sameOptions } from './bindings/same.js'
import type { LiveHandle, LiveItems, LiveQueryOptions, StaleItems, StaleQueryOptions } from './bindings/types.js'

export type { LiveHandle, LiveItems, LiveQueryOptions, StaleItems, StaleQueryOptions } from './bindings/types.js'

/**
 * The live items of `store` (as `db.live(store, options)` emits them), `undefined` before the first
 * result and in a server render, which touches no IndexedDB. `db` may be the promise `openTtlDB`
 * returned. A change of `db`, `store` or `options` (compared by value: an inline object literal is
 * fine) follows the new query, `undefined` until its first result; unmounting unsubscribes. A
 * refused query or a failed reading is thrown at the next render, to the nearest error boundary.
 */
export function useLive<S extends DBSchema | unknown, N extends StoreNames<S>, I extends IndexNames<S, N> = never>(
  db: LiveHandle<S>,
  store: N,
  options?: LiveQueryOptions<S, N, I>,
): LiveItems<S, N> | undefined {
  return useFollow(db, store, options) as LiveItems<S, N> | undefined
}

/**
 * The stale items of `store` (a store with `keepExpired`, docs/stale.md), as
 * `db.getAllStale(store, options?.query)` gives them (`{ key, value, expiredAt }`), read again each
 * time `useLive` on the same store and query would render: an item expiring leaves one list and
 * joins this one at that instant. `undefined` before the first result and in a server render;
 * parameters, unmounting and errors as `useLive`'s.
 */
export function useStale<S extends DBSchema | unknown, N extends StoreNames<S>>(db: LiveHandle<S>, store: N, options?: StaleQueryOptions<S, N>): StaleItems<S, N> | undefined {
  return useFollow(db, store, options, true) as StaleItems<S, N> | undefined
}

function useFollow(db: LiveHandle<any>, store: string, options: object | undefined, stale?: boolean): unknown[] | undefined {
  // The options kept while equal by value, so that a literal written inline keeps the source, and the subscription.
  const kept = useRef(options)
  if (!sameOptions(kept.current, options)) kept.current = options
  const query = kept.current
  const source = useMemo(() => liveSource(db, store, query, stale), [db, store, query, stale])
  return useSyncExternalStore(source.subscribe, source.get, serverSnapshot)
}

/**
 * The live item of `store` with this primary key: `null` when there is none (or it expired, at
 * that instant), `undefined` before the first result. A live query over the one key
 * (`db.live(store, { query: key })`).
 */
export function useLiveItem<S extends DBSchema | unknown, N extends StoreNames<S>>(db: LiveHandle<S>, store: N, key: StoreKey<S, N>): Stamped<StoreValue<S, N>> | null | undefined {
  const items = useLive(db, store, { query: key } as LiveQueryOptions<S, N>)
  return items && (items[0] ?? null)
}

const serverSnapshot = () => undefined

/** What `useSyncExternalStore` takes for one query: its subscribe, and the latest result (or the failure, thrown). */
function liveSource(db: LiveHandle<any>, store: string, options: object | undefined, stale?: boolean) {
  let items: unknown[] | undefined
  let failure: { error: unknown } | undefined
  return {
    subscribe(changed: () => void): () => void {
      const fail = (error: unknown) => {
        failure = { error }
        changed()
      }
      try {
        return follow(db, store, options, (next) => ((items = next), changed()), fail, stale)
      } catch (error) {
        fail(error)
        return () => {}
      }
    },
    get(): unknown[] | undefined {
      if (failure) throw failure.error
      return items
    },
  }
}
