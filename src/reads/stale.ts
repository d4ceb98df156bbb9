/**
 * The stale reads (SPEC §15): the items of a store with a grace (`keepExpired`) that have expired
 * and whose grace has not ended, which every other read hides. An item is stale while it is dead
 * at the read's `now` (a touch this realm owes it counted, as every read counts it) and the purge
 * would still keep it (`rules/grace.ts` `purgeCutoffs`): one rule for the purge and these reads.
 * Nothing here writes or touches: a stale read never brings an item back. The full handle's
 * alone (`assembly/db.ts`), in a module of its own so that a bundle that does not call them drops it.
 */
import { allDeadRanges, EXPIRY_INDEX } from '../layout/expiry-index.js'
import { hasGenerations } from '../layout/generation-index.js'
import { unstamp } from '../layout/stamp.js'
import { expiredAt, purgeCutoffs } from '../rules/grace.js'
import { isDeadMark } from '../rules/policy.js'
import { inQuery, req } from '../platform/request.js'
import type { ReadScope } from './reads.js'

/** An expired item kept for its store's grace, as `getStale` returns it. */
export interface StaleItem<V = unknown> {
  /** The value as it was stored, `_ts` included. */
  value: V
  /** When it expired (epoch ms, as `expiresAt`): see docs/stale.md for items a change of default killed. */
  expiredAt: number
}

/** A stale item with its primary key, as `getAllStale` returns it. */
export interface StaleEntry<K = IDBValidKey, V = unknown> extends StaleItem<V> {
  key: K
}

/** The stale item at `key` in `scope`'s store, if there is one. */
export async function getStale(scope: ReadScope, key: IDBValidKey): Promise<StaleItem | undefined> {
  const value = await req(scope.store.get(key))
  const [entry] = await staleOf(scope, [key], [value])
  return entry && { value: entry.value, expiredAt: entry.expiredAt }
}

/**
 * The stale items of `scope`'s store whose primary key is in `query` (a key or a key range; every
 * one without), in key order. Reads only the dead items, by the expiry index: work in proportion
 * to them, not to the store. (All of them, not only those within the purge's cut-offs by their
 * stored marks: a touch the realm owes may give one a later mark, and a grace not ended yet.)
 */
export async function getAllStale(scope: ReadScope, query?: IDBValidKey | IDBKeyRange | null): Promise<StaleEntry[]> {
  const index = scope.store.index(EXPIRY_INDEX)
  const ranges = allDeadRanges(await scope.cut())
  const found = await Promise.all(ranges.map((range) => Promise.all([req(index.getAllKeys(range)), req(index.getAll(range))])))
  const rows = found.flatMap(([keys, values]) => keys.map((key, i) => ({ key, value: values[i] as unknown })))
  const inRange = rows.filter((row) => inQuery(row.key, query)).sort((a, b) => indexedDB.cmp(a.key, b.key))
  return staleOf(scope, inRange.map((row) => row.key), inRange.map((row) => row.value))
}

/** Of these stored values at `keys`, the stale ones, with their values as reads give them. */
async function staleOf(scope: ReadScope, keys: IDBValidKey[], values: unknown[]): Promise<StaleEntry[]> {
  const state = await scope.state
  const cut = await scope.cut()
  const kept = purgeCutoffs(state, scope.now)
  const live = scope.live(cut)
  const stale = values.flatMap((value, i) => {
    const mark = scope.markFor(value)
    return value === undefined || live(value) || isDeadMark(mark, kept) ? [] : [{ key: keys[i], value, expiredAt: expiredAt(state, mark) }]
  })
  if (!hasGenerations(scope.store) || stale.length === 0) return stale.map((entry) => ({ ...entry, value: unstamp(entry.value) }))
  // Values kept in generations (a store with evictOnQuota): one evicted meanwhile is left out.
  const resolved = await scope.reading.generations!.resolve(scope.store.transaction.db.name, scope.store.name, stale.map((entry) => entry.value))
  return stale.flatMap((entry, i) => (resolved[i] === undefined ? [] : [{ ...entry, value: unstamp(resolved[i]) }]))
}
