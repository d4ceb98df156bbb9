/**
 * What a full handle's `db.transaction` runs once its turn came (`routes.ts` `Routes.transact`):
 * the transaction over the stores (`transaction/run.ts`), with the write observers of mirrored
 * stores, and what it did applied after the commit. The page entries load it with `import()` at a
 * handle's first transaction (issue #44); `idb-ttl/service-worker` imports it.
 */
import { requestStarting } from '../background/activity.js'
import { usesGenerations } from '../layout/generation-index.js'
import { runTransaction } from '../transaction/run.js'
import type { TransactOn } from './routes.js'

/**
 * Runs `callback` in one transaction over `stores` of `routes`' handle (see `Routes.transact`),
 * telling `opened` once the transaction was created.
 * @throws TtlError `UNSUPPORTED` (a store another handle gave generations)
 */
export const transactOn: TransactOn = async (routes, stores, writable, callback, internal, opened) => {
  const { stores: configs, clock, mode, durability, connection, parts } = routes.options
  requestStarting()
  const db = await connection.native()
  // A store declared plainly here that another handle (another app version) gave generations.
  routes.refuseApart(stores.filter((store) => usesGenerations(db, store)), 'declared with evictOnQuota by another version of the app, though not here')
  const observers = writable && internal.observed !== false ? routes.observers : undefined
  const extra = [...new Set([...(internal.extra ?? []), ...(observers?.storesFor(stores) ?? [])])]
  // An observed write is the app's edit of a mirrored store: it restarts the countdown, whatever
  // `_ts` the value carries (SPEC §12b). Only the mirror's own writes, unobserved, keep the server's.
  const keepTs = (store: string) => (configs[store].keepTs === true || configs[store].mirror === true) && (observers?.of(store).length ?? 0) === 0
  const options = { db, stores, extra, writable, durability, now: clock(), mode, keepTs, reading: routes.reading, observers, opened, undoLeaked: routes.undoLeaked }
  return runTransaction(options, callback, async (effects) => {
    for (const [store, items] of effects.claimed) routes.reportClaimed(store, items)
    for (const [store, stored] of effects.stored) parts.background.wrote(store, stored)
    if (effects.stored.size > 0) routes.changed([...effects.stored.keys()])
    await Promise.all(effects.touched)
  })
}
