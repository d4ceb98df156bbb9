/**
 * A pull round: the container's `defaultTtl` becomes the store's, then every item the server
 * changed since the checkpoint comes in with the server's `_ts` and `ttl` (the store keeps `_ts`,
 * so the copy expires when the server's does), page by page, each page in one transaction with
 * the checkpoint it advances. A reload resumes from the checkpoint.
 *
 * The checkpoint is a `_ts`, not a change feed continuation: a query on `_ts` works the same on
 * every account and on the test server (whose change feed has no continuation), takes the app's
 * filter, and is what Cosmos DB documents for incremental reads. `_ts` is whole seconds, so a
 * round reads from the checkpoint's second again; an item it already has (same `_etag`) is
 * skipped. Neither shows deletions: tombstones (`SyncOptions.softDelete`) do, and a full pull
 * finds what was deleted without one.
 */
import { OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { baseOf, describe, inPartition, isTombstone, readOnly, scopeOf, type Mirror } from './context.js'
import { unobserved } from './hook.js'
import { queuedAt } from './outbox.js'
import { readRejected } from './rejected.js'
import { withRetry } from './remote.js'
import { onDeviceClock } from './server-clock.js'
import { keysWithEtags, readBase, readCheckpoint, writeBase, writeCheckpoint } from './state.js'
import type { CosmosItem } from './types.js'

/** Items per page: one transaction each, and the most a failure makes a round read again. */
export const PAGE = 200

/** Pulls once; resolves to how many items came in (or went, as tombstones). */
export async function pullRound(mirror: Mirror, full: boolean): Promise<number> {
  const { store, container, board } = mirror
  await describe(mirror)
  // A new offset of the device's clock moves every copy: the container is read again.
  const source = JSON.stringify([container.database.id, container.id, mirror.options.partitionKey ?? null, mirror.options.filter ?? null, mirror.offsetS ?? 0])
  let pulled = 0
  // A failed page (after its retries) ends the attempt; the next starts at the checkpoint the
  // last good page left, with a fresh query.
  await withRetry(async () => {
    const checkpoint = await readOnly(mirror, (tx) => readCheckpoint(tx, store))
    const from = checkpoint?.source === source ? checkpoint.ts : 0
    const { where, parameters } = scopeOf(mirror)
    const query = {
      query: `SELECT * FROM c WHERE ${['c._ts >= @idbTtlFrom', ...where].join(' AND ')} ORDER BY c._ts`,
      parameters: [{ name: '@idbTtlFrom', value: from }, ...parameters],
    }
    const pages = container.items.query<CosmosItem>(query, { maxItemCount: PAGE, ...inPartition(mirror) })
    // The next page is on its way while this one is written. Should the write fail first, that
    // page is never awaited: its own failure is dropped here rather than reported as unhandled.
    const fetchNext = () => {
      const page = pages.fetchNext()
      page.catch(() => {})
      return page
    }
    let next = pages.hasMoreResults() ? fetchNext() : undefined
    while (next) {
      const { resources = [] } = await next
      next = pages.hasMoreResults() ? fetchNext() : undefined
      pulled += await applyPage(mirror, resources, source, from)
      board.set('pulling', { pulled })
    }
  }, mirror.retry)
  if (full) pulled += await removeGone(mirror)
  return pulled
}

/** Writes one page and the checkpoint after it; skips items with a local write queued. */
async function applyPage(mirror: Mirror, items: CosmosItem[], source: string, from: number): Promise<number> {
  const { store } = mirror
  return unobserved(mirror.db, store, [OUTBOX_STORE, SYNC_STORE], async (tx) => {
    let applied = 0
    let ts = from
    const known = await Promise.all(items.map((item) => Promise.all([queuedAt(tx.raw, store, item.id), readBase(tx.raw, store, item.id), readRejected(tx.raw, store, item.id)])))
    for (const [i, item] of items.entries()) {
      ts = Math.max(ts, item._ts ?? 0)
      const [queued, base, rejected] = known[i]
      // A queued local write is settled by the push, against the base it was made on; one the
      // server refused, by the app (`rejected.ts`). A copy in step is skipped, unless the offset
      // of the device's clock moved since (`server-clock.ts`): then it moves too.
      const inStep = base?.etag === item._etag && (base?.offsetS ?? 0) === (mirror.offsetS ?? 0)
      if (queued || rejected || inStep) continue
      if (isTombstone(mirror, item)) tx.delete(item.id)
      else tx.put(onDeviceClock(mirror, item))
      writeBase(tx.raw, store, item.id, baseOf(mirror, item))
      applied++
    }
    writeCheckpoint(tx.raw, store, { source, ts })
    return applied
  })
}

/** A full pull's second half: deletes local items the server no longer has (none queued). */
async function removeGone(mirror: Mirror): Promise<number> {
  const { store, container } = mirror
  const { where, parameters } = scopeOf(mirror)
  const query = { query: `SELECT c.id FROM c${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, parameters }
  const { resources } = await withRetry(() => container.items.query<{ id: string }>(query, inPartition(mirror)).fetchAll(), mirror.retry)
  const onServer = new Set(resources.map((item) => item.id))
  const local = await mirror.db.getAllKeys(store)
  return unobserved(mirror.db, store, [OUTBOX_STORE, SYNC_STORE], async (tx) => {
    const fromServer = await keysWithEtags(tx.raw, store)
    const candidates = [...new Set([...local, ...fromServer])].filter((key) => !onServer.has(key as string))
    const queued = await Promise.all(candidates.map((key) => queuedAt(tx.raw, store, key)))
    let removed = 0
    for (const [i, key] of candidates.entries()) {
      if (queued[i]) continue
      tx.delete(key)
      writeBase(tx.raw, store, key, undefined)
      removed++
    }
    return removed
  })
}
