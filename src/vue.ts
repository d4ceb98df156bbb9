/**
 * `idb-ttl/vue`: live queries (`db.live`, SPEC §11) as a Vue 3.5 composable whose parameters may
 * be refs or getters (docs/frameworks.md). Vue is an optional peer of the package.
 */
import { computed, getCurrentInstance, inject, shallowRef, ssrContextKey, toRaw, toValue, watch, type MaybeRefOrGetter, type Ref } from 'vue'
import type { IndexNames, StoreNames } from 'idb'
import type { DBSchema } from './index.js'
import { follow, report } from './bindings/follow.js'
import { sameOptions } from './bindings/same.js'
import type { LiveHandle, LiveItems, LiveQueryOptions, StaleItems, StaleQueryOptions } from './bindings/types.js'

export type { LiveHandle, LiveItems, LiveQueryOptions, StaleItems, StaleQueryOptions } from './bindings/types.js'

type Params = readonly [LiveHandle<any>, string, object | undefined]

/**
 * A ref of the live items of `store` (as `db.live(store, options)` emits them), `undefined` before
 * the first result, and in a server render, which touches no IndexedDB. `db` may be the promise `openTtlDB` returned. Each parameter may be a ref or a
 * getter: when one changes (`options` compared by value) the ref follows the new query, `undefined`
 * until its first result. The subscription ends with the effect scope (the component) it was made
 * in. A refused query throws where Vue reports a watcher's error; a failed reading or open is
 * thrown in a microtask, as a live query's own subscriber errors are.
 */
export function useLive<S extends DBSchema | unknown, N extends StoreNames<S>, I extends IndexNames<S, N> = never>(
  db: MaybeRefOrGetter<LiveHandle<S>>,
  store: MaybeRefOrGetter<N>,
  options?: MaybeRefOrGetter<LiveQueryOptions<S, N, I> | undefined>,
): Readonly<Ref<LiveItems<S, N> | undefined>> {
  return useFollow(db, store, options) as Ref<LiveItems<S, N> | undefined>
}

/**
 * A ref of the stale items of `store` (a store with `keepExpired`, docs/stale.md), as
 * `db.getAllStale(store, options?.query)` gives them (`{ key, value, expiredAt }`), read again each
 * time `useLive` on the same store and query would change: an item expiring leaves one list and
 * joins this one at that instant. Parameters (refs or getters), scope and errors as `useLive`'s.
 */
export function useStale<S extends DBSchema | unknown, N extends StoreNames<S>>(
  db: MaybeRefOrGetter<LiveHandle<S>>,
  store: MaybeRefOrGetter<N>,
  options?: MaybeRefOrGetter<StaleQueryOptions<S, N> | undefined>,
): Readonly<Ref<StaleItems<S, N> | undefined>> {
  return useFollow(db, store, options, true) as Ref<StaleItems<S, N> | undefined>
}

function useFollow(db: MaybeRefOrGetter<LiveHandle<any>>, store: MaybeRefOrGetter<string>, options: MaybeRefOrGetter<object | undefined>, stale?: boolean): Ref<unknown[] | undefined> {
  const items = shallowRef<unknown[]>()
  // A server render runs an immediate watcher once: it would start a reading only to stop it.
  if (getCurrentInstance() && inject(ssrContextKey, null)) return items
  const params = computed<Params>((previous) => {
    const next: Params = [toValue(db), toValue(store), plain(toValue(options))]
    return previous && previous[0] === next[0] && previous[1] === next[1] && sameOptions(previous[2], next[2]) ? previous : next
  })
  watch(
    params,
    ([handle, name, query], _, onCleanup) => {
      items.value = undefined
      onCleanup(follow(handle, name, query, (next) => (items.value = next), report, stale))
    },
    { immediate: true },
  )
  return items
}

/** The options as `db.live` takes them: each one read (so that a reactive object's change is seen), none of Vue's proxies. */
function plain(options: object | undefined): object | undefined {
  return options && Object.fromEntries(Object.entries(options).map(([key, value]) => [key, toRaw(value)]))
}
