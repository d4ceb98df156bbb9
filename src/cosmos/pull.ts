/**
 * A pull round: the container's `defaultTtl` becomes the store's, then every item the server
 * changed since the checkpoint comes in with the server's `_ts` and `ttl` (the store keeps `_ts`,
 * so the copy expires when the server's does), page by page, each page in one transaction with
 * the checkpoint it advances. A reload resumes from the checkpoint.
 *
 * The checkpoint is a `_ts`, not a change feed continuation: a query on `_ts` works the same on
 * every account and on the test server (whose change feed has no continuation), takes the app's
 * filter, and is what Cosmos DB documents for incremental reads. `_ts` is whole seconds, so a
 * round reads from the checkpoint's second again (an item it already has, same `_etag`, is
 * skipped), unless the server's time in the round's first answer shows that second was over
 * before the query: then the next round starts after it (an idle round reads nothing). Neither
 * shows deletions: tombstones (`SyncOptions.softDelete`) do, and comparing ids finds what was
 * deleted without one, when a count says there is something to find (`unseen-deletes.ts`). A tombstone lives `softDelete.ttl` seconds on the server:
 * a round that starts longer than that after the last one began may have missed some, so it is a
 * full pull by itself (SPEC §12b: deletes reach a device however long it was offline).
 *
 * With a filter, a round also asks which items changed since the checkpoint and no longer match
 * it (changed on the server, or replaced by a tombstone that lacks the filter's fields): their
 * local copies leave the store.
 */
import { OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { baseOf, describe, inPartition, isTombstone, partitionKeyOf, readOnly, samePartition, scopeOf, type Mirror } from './context.js'
import { readUnobserved, unobserved, type MirrorTx } from './hook.js'
import { queuedAt } from './outbox.js'
import { dropRefused, readRejected, refuseCopy, refusedKeys } from './rejected.js'
import { withRetry } from './remote.js'
import { countsDisagree } from './unseen-deletes.js'
import { onDeviceClock } from './server-clock.js'
import { readPageState } from './page-state.js'
import { keysWithEtags, readCheckpoint, writeBase, writeCheckpoint, type Base, type Checkpoint } from './state.js'
import { check } from '../layout/stamp.js'
import { done } from '../platform/request.js'
import type { CosmosItem } from './types.js'

/** Items per page: one transaction each, and the most a failure makes a round read again. */
export const PAGE = 200

/**
 * Seconds between the server's time in the round's first answer and the last second whose
 * writes the round's query (sent after it) is sure to see: a write is stamped with its `_ts`
 * before it commits, and the `date` is whole seconds.
 */
const SETTLE_S = 2

/** Pulls once; resolves to how many items came in (or went, as tombstones). */
export async function pullRound(mirror: Mirror, full: boolean): Promise<number> {
  const { store, container, board } = mirror
  const startedAt = mirror.internals.clock()
  await describe(mirror)
  // A new offset of the device's clock moves every copy, and a new container TTL may bring back
  // copies the store purged under the old one: either way the container is read again.
  const source = JSON.stringify([container.database.id, container.id, mirror.options.partitionKey ?? null, mirror.options.filter ?? null, mirror.offsetS ?? 0, mirror.containerTtl ?? null])
  const last = await readOnly(mirror, (tx) => readCheckpoint(tx, store))
  // A re-read is done only once a round completed it: one cut short goes on, from its checkpoint.
  const restored = last !== undefined && (last.source !== source || last.rereading === true)
  // A round finds what the server deleted outright (no tombstone) only by comparing ids: when
  // asked, and when the copies move (a new offset, a new TTL): a copy the server removed
  // meanwhile is not among those the round reads again. Where deletes are plain (no soft delete,
  // or the container's TTL off) and where tombstones may be gone, it counts first, and compares
  // ids only when the counts disagree (`unseen-deletes.ts`).
  const plainDeletes = !mirror.options.softDelete || mirror.containerTtl === null
  // With a filter, a pull from 0 asks nothing of the items that left it: the scope's first pull
  // (a held write, pushed, may be outside the filter) and every pull of a scope still empty.
  const fromZero = mirror.options.filter !== undefined && (last === undefined || last.ts === 0)
  // The container replaced since the last round (its definition's `_etag`): a TTL set and set
  // back in between (-1 → 5 → -1) expired items, which the server removed without a tombstone.
  const replaced = last !== undefined && last.container !== mirror.containerEtag
  const counted = plainDeletes || (last !== undefined && tombstonesMayBeGone(mirror, last, startedAt))
  // Every write the server made in this second or before was there for the query to read.
  const settled = mirror.serverAt === undefined ? 0 : Math.floor(mirror.serverAt / 1000) - SETTLE_S
  let pulled = 0
  let left = 0
  // A failed page (after its retries) ends the attempt; the next starts at the checkpoint the
  // last good page left, with a fresh query.
  await withRetry(async () => {
    const checkpoint = await readOnly(mirror, (tx) => readCheckpoint(tx, store))
    const from = checkpoint?.source === source ? checkpoint.ts : 0
    // Asked before the pages: an item that leaves the scope and comes back meanwhile is pulled.
    if (from > 0 && mirror.options.filter) left += await removeLeft(mirror, from)
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
      pulled += await applyPage(mirror, resources, source, from, restored)
      board.set('pulling', { pulled })
    }
  }, mirror.retry)
  if (full || restored || replaced || fromZero || (counted && (await countsDisagree(mirror)))) pulled += await removeGone(mirror)
  await markPulled(mirror, source, startedAt, settled)
  return pulled + left
}

/**
 * Whether tombstones written since the round that began at `checkpoint.pulledAt` may already be
 * gone from the server (it removes each `softDelete.ttl` seconds after it was written). A
 * checkpoint of a version that kept no `pulledAt` counts as long ago. Without soft deletes an
 * incremental pull never sees a delete: only a full pull asked for finds them.
 */
function tombstonesMayBeGone(mirror: Mirror, checkpoint: Checkpoint, now: number): boolean {
  const soft = mirror.options.softDelete
  if (!soft) return false
  // A second's margin: the server counts whole seconds.
  return checkpoint.pulledAt === undefined || now - checkpoint.pulledAt >= (soft.ttl - 1) * 1000
}

/**
 * Records when the round that just ended began (the next round's {@link tombstonesMayBeGone})
 * and the container definition's `_etag` it read, and moves the checkpoint past `settled`, the
 * last second whose writes the round's query saw whole: the next round does not read again the
 * last second it read (an idle round's answer is empty), only what came after.
 */
async function markPulled(mirror: Mirror, source: string, startedAt: number, settled: number): Promise<void> {
  const tx = (await mirror.internals.native()).transaction(SYNC_STORE, 'readwrite')
  const checkpoint = await readCheckpoint(tx, mirror.store)
  const ts = checkpoint?.source === source ? checkpoint.ts : 0
  writeCheckpoint(tx, mirror.store, { source, ts: Math.max(ts, settled + 1), pulledAt: startedAt, container: mirror.containerEtag })
  await done(tx)
}

/**
 * Deletes the local copies (none queued or set aside) of items changed on the server since
 * `from` that are in the partition but do not match the filter now: `NOT IS_BOOL(…)` catches a
 * filter that reads a field the item no longer has (`undefined` in Cosmos SQL, which `NOT`
 * leaves undefined).
 */
async function removeLeft(mirror: Mirror, from: number): Promise<number> {
  const { container, options } = mirror
  const scope = scopeOf({ ...mirror, options: { ...options, filter: undefined } })
  const filter = options.filter!
  const where = ['c._ts >= @idbTtlFrom', ...scope.where, `(NOT IS_BOOL(${filter.where}) OR NOT (${filter.where}))`]
  const query = { query: `SELECT c.id FROM c WHERE ${where.join(' AND ')}`, parameters: [{ name: '@idbTtlFrom', value: from }, ...scope.parameters, ...(filter.parameters ?? [])] }
  const { resources } = await withRetry(() => container.items.query<{ id: string }>(query, inPartition(mirror)).fetchAll(), mirror.retry)
  if (resources.length === 0) return 0
  return removeCopies(mirror, async () => resources.map((item) => item.id))
}

/**
 * Writes one page and the checkpoint after it; skips items with a local write queued, and copies
 * in step with the server's, unless `restored` (the container's TTL changed): then a copy the
 * store no longer holds (purged under the old TTL) is written again.
 */
async function applyPage(mirror: Mirror, items: CosmosItem[], source: string, from: number, restored: boolean): Promise<number> {
  const { store } = mirror
  return unobserved(mirror.db, store, [OUTBOX_STORE, SYNC_STORE], async (tx) => {
    let applied = 0
    let ts = from
    // Everything this page needs, read before its first write (a few requests, not a few per item).
    const [known, before, held] = await Promise.all([
      readPageState(tx.raw, store, items.map((item) => item.id)),
      readCheckpoint(tx.raw, store),
      restored ? Promise.all(items.map((item) => tx.get(item.id))) : undefined,
    ])
    // The bases this page wrote: an id may come twice (an item moved, `push.ts`: its old copy's
    // tombstone, and its new copy).
    const written = new Map<string, Base>()
    for (const [i, item] of items.entries()) {
      ts = Math.max(ts, item._ts ?? 0)
      const { queued, rejected, refused } = known[i]
      const base = written.get(item.id) ?? known[i].base
      // The tombstone of a copy in another partition than the local one's: a moved item's old copy.
      if (isTombstone(mirror, item) && base?.pk !== undefined && !samePartition(base.pk, partitionKeyOf(mirror, item))) continue
      // A queued local write is settled by the push, against the base it was made on; one the
      // server refused, by the app (`rejected.ts`). A copy in step is skipped, unless the offset
      // of the device's clock moved since (`server-clock.ts`): then it moves too.
      const inStep = base?.etag === item._etag && (base?.offsetS ?? 0) === (mirror.offsetS ?? 0) && (!held || held[i] !== undefined)
      if (queued || rejected || inStep) continue
      const tombstone = isTombstone(mirror, item)
      const copy = onDeviceClock(mirror, item)
      // A copy the store would refuse (an item `ttl` it cannot take) is set aside, not written:
      // the page and the pull go on without it.
      const refusal = tombstone ? undefined : refusalOf(mirror, copy, tx)
      if (refusal) {
        refuseCopy(tx.raw, store, item, baseOf(mirror, item), refusal)
        continue
      }
      if (refused) dropRefused(tx.raw, store, item.id)
      if (tombstone) tx.delete(item.id)
      else tx.put(copy)
      written.set(item.id, baseOf(mirror, item))
      writeBase(tx.raw, store, item.id, written.get(item.id))
      applied++
    }
    writeCheckpoint(tx.raw, store, { source, ts, pulledAt: before?.source === source ? before.pulledAt : undefined, container: before?.container, ...(restored && { rereading: true }) })
    return applied
  })
}

/** Why the store refuses the copy `item` (the check its writes make), in words, or `undefined` when it takes it. */
function refusalOf(mirror: Mirror, item: CosmosItem, tx: MirrorTx): unknown {
  try {
    check(item, mirror.internals.mode, `store "${mirror.store}", item ${JSON.stringify(item.id)}`, true)
    return undefined
  } catch (error) {
    return tx.words(error)
  }
}

/**
 * A full pull's second half: deletes local items the server no longer has live (none queued or set
 * aside). A tombstone is not the item: the one a moved item left in its old partition must not
 * keep a copy whose new one the server removed since. But a base on a tombstone the server still
 * holds stays: the mirror is in step with it, and a later local write of the key replaces it
 * (`If-Match`) rather than meeting it as a conflict.
 */
async function removeGone(mirror: Mirror): Promise<number> {
  const { store, container } = mirror
  const soft = mirror.options.softDelete
  const { where, parameters } = scopeOf(mirror)
  const query = { query: `SELECT c.id, c._etag${soft ? `, c[${JSON.stringify(soft.field)}] AS deleted` : ''} FROM c${where.length ? ` WHERE ${where.join(' AND ')}` : ''}`, parameters }
  const { resources } = await withRetry(() => container.items.query<{ id: string; _etag: string; deleted?: unknown }>(query, inPartition(mirror)).fetchAll(), mirror.retry)
  const onServer = new Set<string>()
  const tombstones = new Set<string>()
  for (const item of resources) (item.deleted === true ? tombstones.add(item._etag) : onServer.add(item.id))
  const local = await readUnobserved(mirror.db, store, (tx) => tx.getAllKeys(store))
  return removeCopies(mirror, async (tx) => {
    const [fromServer, refused] = await Promise.all([keysWithEtags(tx, store, tombstones), refusedKeys(tx, store)])
    return [...new Set([...local, ...fromServer, ...refused])].filter((key) => !onServer.has(key as string))
  })
}

/**
 * In one transaction, deletes the local copies of the keys `which` names, their bases and their
 * refused copies, except those with a local write queued or set aside; resolves to how many went.
 */
async function removeCopies(mirror: Mirror, which: (tx: IDBTransaction) => Promise<IDBValidKey[]>): Promise<number> {
  const { store } = mirror
  return unobserved(mirror.db, store, [OUTBOX_STORE, SYNC_STORE], async (tx) => {
    const keys = await which(tx.raw)
    const held = await Promise.all(keys.map(async (key) => (await queuedAt(tx.raw, store, key)) ?? (await readRejected(tx.raw, store, key))))
    let removed = 0
    for (const [i, key] of keys.entries()) {
      if (held[i]) continue
      tx.delete(key)
      writeBase(tx.raw, store, key, undefined)
      dropRefused(tx.raw, store, key)
      removed++
    }
    return removed
  })
}
