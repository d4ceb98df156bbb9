/**
 * The reads of the handle's less common calls (`get` by a range, the keys, the index calls that
 * return one item or keys, `expiresAt`, `stats`, `iterate`, `getDefaultTtl`) and of a
 * transaction's: loaded by the page entries at the first of them (`assembly/calls.ts`, issue #44),
 * so that an app that only gets by key, puts, deletes, gets all and counts loads none of it. They
 * read as `reads.ts`'s do, in a {@link ReadScope} the handle opens in the call's turn.
 */
import { EXPIRY_INDEX, META_STORE } from '../layout/expiry-index.js'
import { nextDeath } from '../layout/next-death.js'
import { markExpiryMs, type StoreState } from '../rules/policy.js'
import { keyId, req, walk } from '../platform/request.js'
import type { DefaultTtl } from '../rules/ttl.js'
import { liveValues, type Query, type ReadScope, type Source, type StoreStats } from './reads.js'
import { deadKeys } from './index-reads.js'

/** The first live value matching `query` (a range, or an index key several entries may share). */
export async function getOne(scope: ReadScope, source: Source, query: IDBValidKey | IDBKeyRange): Promise<unknown> {
  const value = await req(source.get(query))
  const cut = await scope.cut()
  const [first] = value === undefined || scope.live(cut)(value) ? [value] : await liveValues(scope, source, query, 1, cut)
  return first === undefined ? undefined : (await scope.out([first]))[0]
}

/** Live primary keys of a store, or of an index's entries. */
export async function getKeys(scope: ReadScope, source: Source, query: Query, count?: number): Promise<IDBValidKey[]> {
  const keys = await req(source.getAllKeys(query, count))
  const dead = await deadKeys(scope, await scope.cut())
  if (dead.size === 0) return keys
  const kept = keys.filter((key) => !dead.has(keyId(key)))
  if (!count || keys.length < count || kept.length === count) return kept
  return walk<IDBCursor, IDBValidKey>(source.openKeyCursor(query), count, (c) => (dead.has(keyId(c.primaryKey)) ? undefined : c.primaryKey))
}

/** When the live item at `key` dies under the settings in force (epoch ms); `undefined`: no live item. */
export async function expiryOf(scope: ReadScope, key: IDBValidKey): Promise<number | undefined> {
  const value = await req(scope.store.get(key))
  const cut = await scope.cut()
  if (value === undefined || !scope.live(cut)(value)) return undefined
  return markExpiryMs(await scope.state, scope.markFor(value))
}

/** Live and dead counts and the next expiry, in one read transaction, by the expiry index alone. */
export async function stats(scope: ReadScope): Promise<StoreStats> {
  const total = req(scope.store.count())
  const cut = await scope.cut()
  const next = scope.state.then((state) => nextDeath(scope.store.index(EXPIRY_INDEX), state, cut))
  const [all, expiredOnDisk, nextExpiryMs] = await Promise.all([total, scope.deadCount(cut, undefined), next])
  return { live: all - expiredOnDisk, expiredOnDisk, nextExpiryMs }
}

/** The store's default as persisted in the database. */
export async function storedDefaultTtl(db: IDBDatabase, storeName: string): Promise<DefaultTtl> {
  const state: StoreState = await req(db.transaction(META_STORE).objectStore(META_STORE).get(storeName))
  return state.defaultTtl
}

/** The part of `query` strictly after `key` (ascending); `undefined` when nothing is left. */
function after(key: IDBValidKey, query: IDBKeyRange | undefined): IDBKeyRange | undefined {
  if (query?.upper === undefined) return IDBKeyRange.lowerBound(key, true)
  // A range cannot be empty: past (or on) its upper bound there is nothing more to read.
  if (indexedDB.cmp(key, query.upper) >= 0) return undefined
  return IDBKeyRange.bound(key, query.upper, true, query.upperOpen)
}

/**
 * Live values of a store in key order, a page of `pageSize` stored items per transaction, so the
 * caller may await anything between pages (a cursor's transaction would close under it).
 */
export async function* pages(
  open: () => Promise<ReadScope>,
  query: Query,
  pageSize: number,
): AsyncGenerator<unknown[], void> {
  let range = query ?? undefined
  for (;;) {
    const scope = await open()
    const keys = req(scope.store.getAllKeys(range, pageSize))
    const values = await req(scope.store.getAll(range, pageSize))
    const cut = await scope.cut()
    const last = (await keys).at(-1)
    const kept = await scope.out(values.filter(scope.live(cut)))
    if (kept.length > 0) yield kept
    if (values.length < pageSize || last === undefined || !(range === undefined || range instanceof IDBKeyRange)) return
    const rest = after(last, range)
    if (rest === undefined) return
    range = rest
  }
}
