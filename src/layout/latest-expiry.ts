/**
 * When the last item of a database dies: what a bucket's expiry must not come before
 * (`bucket.expiresAfterItems`, docs/storage.md). Read from the expiry index's ends, two key
 * cursors and two counts per store, not from the items.
 */
import { EXPIRY_INDEX, META_STORE } from './expiry-index.js'
import { req } from '../platform/request.js'
import { markExpiryMs, OWN_BASE, type StoreState } from '../rules/policy.js'

/** The highest key of `index` in `range`, walking backwards one step. */
async function last(index: IDBIndex, range: IDBKeyRange | null): Promise<number | undefined> {
  return (await req(index.openKeyCursor(range, 'prev')))?.key as number | undefined
}

/**
 * The latest expiry among the items of `stores` (epoch ms): `Infinity` when one of them never
 * expires (no mark: `ttl: -1`, a store with TTL off), `-Infinity` when they hold none.
 */
export async function latestExpiry(db: IDBDatabase, stores: readonly string[]): Promise<number> {
  const tx = db.transaction([...stores, META_STORE])
  let latest = -Infinity
  for (const name of stores) {
    const store = tx.objectStore(name)
    const index = store.index(EXPIRY_INDEX)
    const [state, all, marked, inherit, own] = await Promise.all([
      req(tx.objectStore(META_STORE).get(name)) as Promise<StoreState | undefined>,
      req(store.count()),
      req(index.count()),
      last(index, IDBKeyRange.upperBound(OWN_BASE, true)),
      last(index, IDBKeyRange.lowerBound(OWN_BASE)),
    ])
    if (all === 0) continue
    if (all > marked || !state) return Infinity
    latest = Math.max(latest, inherit === undefined ? -Infinity : markExpiryMs(state, inherit), own === undefined ? -Infinity : markExpiryMs(state, own))
  }
  return latest
}
