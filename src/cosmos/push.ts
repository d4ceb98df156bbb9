/**
 * A push round: every queued write of the store, oldest first, a batch of a hundred at a time
 * (first as one bulk request, `bulk.ts`; then what it left, record by record, a few at once). A
 * write goes with `If-Match` on the `_etag` of the server copy it was made on (a new item: as a
 * create), so that a server copy changed meanwhile is a conflict (`conflicts.ts`) rather than
 * lost. The server's answers come back into the local items (their `_ts`, `_etag`), in one
 * transaction with the removal of the batch's records — except an item written again meanwhile,
 * whose newer record the round sends next.
 *
 * A put whose local item is no longer live (it expired while offline) is sent as a delete: had
 * it reached the server in time, it would have expired there too. A record the server refuses
 * for itself (400, 409, 413) is set aside (`rejected.ts`), and the round goes on with the next.
 */
import type { ItemDefinition, PartitionKey, RequestOptions } from '@azure/cosmos'
import { OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { sendBulk, type Outcome } from './bulk.js'
import { lastWriterWins } from './conflicts.js'
import { baseOf, describe, inPartition, isTombstone, partitionKeyOf, readOnly, sameBody, samePartition, scopeOf, tombstoneOf, toServer, type Mirror } from './context.js'
import { readUnobserved, unobserved } from './hook.js'
import { countQueued, nextQueued, stillQueued, unqueue, type Queued } from './outbox.js'
import { statusOf, withRetry } from './remote.js'
import { countRejected, dropRejected, isRefusal, setAside } from './rejected.js'
import { onDeviceClock, onServerClock } from './server-clock.js'
import { readBase, writeBase, type Base } from './state.js'
import type { CosmosItem, Resolution } from './types.js'

/** Records read from the outbox at a time: their answers are written back in one transaction. */
const BATCH = 100
/** A batch this long or longer goes first as one bulk request (`bulk.ts`); a shorter one, record by record. */
const BULK_FROM = 2
/**
 * Records in flight at once. Their keys differ (one record per key), so their order does not
 * matter; a later write of a key is a later record, in a later batch. A browser opens six
 * connections per host over HTTP/1.1: more would queue in the browser.
 */
const IN_FLIGHT = 6

/** A record sent: what the server holds now, or why it refused it. */
type Sent = { record: Queued; outcome: Outcome } | { record: Queued; refused: unknown }

/**
 * Pushes once; resolves to how many writes were sent. A failure that is not a refusal ends the
 * round once the records in flight are answered: those that went through are written back first.
 */
export async function pushRound(mirror: Mirror): Promise<number> {
  await describe(mirror)
  let pushed = 0
  let after = 0
  // Counted once: a count of the outbox is a walk of it, which per batch would make a long
  // queue's push quadratic. Writes made during the round are counted when it ends (`sync.ts`).
  let pending = await readOnly(mirror, (tx) => countQueued(tx, mirror.store))
  for (;;) {
    const batch = await readOnly(mirror, (tx) => nextQueued(tx, mirror.store, after, BATCH))
    if (batch.length === 0) break
    const { done, rest } = batch.length >= BULK_FROM ? await sendBulk(mirror, batch) : { done: [], rest: batch }
    const sent: Sent[] = [...done]
    let failed: { error: unknown } | undefined
    let next = 0
    const worker = async () => {
      while (!failed && next < rest.length) {
        const record = rest[next++]
        try {
          sent.push({ record, outcome: await pushOne(mirror, record) })
        } catch (error) {
          // Refused by the server for itself: set aside, and the round goes on with the next.
          if (isRefusal(error)) sent.push({ record, refused: error })
          else failed ??= { error }
        }
      }
    }
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, rest.length) }, worker))
    if (sent.length > 0) {
      const { left, rejected } = await settle(mirror, sent)
      pushed += sent.length
      pending = Math.max(0, pending - left)
      mirror.board.set('pushing', { pushed, pending, rejected })
    }
    if (failed) throw failed.error
    after = batch[batch.length - 1].seq
  }
  return pushed
}

/** How many records of the store are queued, and how many set aside. */
export function countsOf(mirror: Mirror): Promise<Counts> {
  return readOnly(mirror, (tx) => countsIn(tx, mirror.store))
}

async function pushOne(mirror: Mirror, record: Queued): Promise<Outcome> {
  const { db, store } = mirror
  const [local, base] = await Promise.all([
    record.op === 'put' ? (readUnobserved(db, store, (tx) => tx.get(store, record.key)) as Promise<CosmosItem | undefined>) : undefined,
    readOnly(mirror, (tx) => readBase(tx, store, record.key)),
  ])
  const id = String(record.key)
  // The item's partition: the local item's where there is one, else the server copy's it was
  // last in step with (a delete: the local item is gone).
  let pk = local ? partitionKeyOf(mirror, toServer(mirror, local)) : base?.pk
  // An edit of the partition key's fields moves the item: never two copies of one id.
  const moved = local !== undefined && base?.pk !== undefined && !samePartition(pk, base.pk)
  try {
    if (local) return await (moved ? sendMove(mirror, local, base!) : sendPut(mirror, local, base?.etag))
    if (base === undefined) return await deleteUnseen(mirror, id, record.at)
    // A base kept by a version of the mirror before partition keys were: the server copy's.
    pk ??= await readServer(mirror, id, undefined).then((server) => server && partitionKeyOf(mirror, server))
    if (pk === undefined) return { item: undefined }
    return await sendDelete(mirror, id, base.etag, pk)
  } catch (error) {
    const status = statusOf(error)
    // A replace that finds no item: deleted on the server outright since (no tombstone), a
    // conflict like any other, which the app's policy decides (`Conflict.server` undefined).
    if (status !== 412 && status !== 409 && !(status === 404 && local)) throw error
  }
  // A move's conflict is over the copy in the new partition (its create refused) or the old one
  // (its delete refused: that copy changed).
  const server = (await readServer(mirror, id, pk)) ?? (moved ? await readServer(mirror, id, base!.pk) : undefined)
  // The server holds this very write: an earlier attempt landed and its answer was lost (a
  // retried request, a bulk request that failed as a whole). Not a conflict: nothing to decide.
  if (local && server && sameBody(toServer(mirror, local), server)) return { item: await withinFilter(mirror, server) }
  return resolve(mirror, id, local, record.at, server)
}

function call<T>(mirror: Mirror, run: () => Promise<T>): Promise<T> {
  return withRetry(run, mirror.retry)
}

const ifMatch = (etag: string): RequestOptions => ({ accessCondition: { type: 'IfMatch', condition: etag } })

async function sendPut(mirror: Mirror, local: CosmosItem, etag: string | undefined): Promise<Outcome> {
  const body = toServer(mirror, local)
  const { container } = mirror
  if (etag === undefined) return { item: (await call(mirror, () => container.items.create<ItemDefinition>(body))).resource as CosmosItem }
  const item = container.item(body.id, partitionKeyOf(mirror, body))
  return { item: (await call(mirror, () => item.replace<ItemDefinition>(body, ifMatch(etag)))).resource as CosmosItem }
}

/**
 * Moves an item whose partition key's fields were edited: the copy it was made on deleted from
 * its partition on the condition that it is still that copy (as a local delete goes: a tombstone
 * tells the mirrors of that partition only), then the item created in its own.
 */
async function sendMove(mirror: Mirror, local: CosmosItem, base: Base): Promise<Outcome> {
  // Its old copy gone (404): deleted outright meanwhile, a conflict, as for an edit in place.
  await sendDelete(mirror, local.id, base.etag, base.pk!, true)
  return sendPut(mirror, local, undefined)
}

/**
 * Deletes `id` in partition `pk` (its own: a 404 then means the item is gone indeed, done unless
 * `mustExist`), as a tombstone or a plain delete; `etag`: on the condition that the server copy
 * is that one.
 */
async function sendDelete(mirror: Mirror, id: string, etag: string | undefined, pk: PartitionKey, mustExist = false): Promise<Outcome> {
  const { container, options } = mirror
  const soft = options.softDelete
  const accessCondition = etag === undefined ? {} : ifMatch(etag)
  try {
    // A container with TTL off would keep a tombstone for ever.
    if (soft && mirror.containerTtl !== null) {
      const tombstone = tombstoneOf(mirror, id, pk, soft)
      const write = () => (etag === undefined ? container.items.upsert<ItemDefinition>(tombstone) : container.item(id, pk).replace<ItemDefinition>(tombstone, accessCondition))
      return { item: (await call(mirror, write)).resource as CosmosItem }
    }
    await call(mirror, () => container.item(id, pk).delete(accessCondition))
  } catch (error) {
    if (statusOf(error) !== 404 || mustExist) throw error
  }
  return { item: undefined }
}

/**
 * A delete of an item the mirror has no server copy of (written and deleted locally, never
 * pushed). Nothing to send, unless the server has an item of that key now: one a pull skipped
 * while this write was queued, and, its checkpoint past it, will not read again. That is a
 * conflict, as a create over it would be.
 */
async function deleteUnseen(mirror: Mirror, id: string, at: number): Promise<Outcome> {
  const server = await readServer(mirror, id, undefined)
  if (server === undefined || isTombstone(mirror, server)) return { item: server }
  return resolve(mirror, id, undefined, at, server)
}

/**
 * The server's copy of `id` now (`undefined`: it has none): a point read in partition `pk`, or,
 * where the mirror does not know the item's partition (an item it never had from the server, in a
 * whole container or under a hierarchical key), a query by `id` within the mirror's scope.
 */
export async function readServer(mirror: Mirror, id: string, pk: PartitionKey | undefined): Promise<CosmosItem | undefined> {
  const { container } = mirror
  if (pk !== undefined) return (await call(mirror, () => container.item(id, pk).read<CosmosItem>())).resource
  const { where, parameters } = scopeOf(mirror)
  const query = { query: `SELECT * FROM c WHERE ${['c.id = @idbTtlId', ...where].join(' AND ')}`, parameters: [{ name: '@idbTtlId', value: id }, ...parameters] }
  return (await call(mirror, () => container.items.query<CosmosItem>(query, inPartition(mirror)).fetchAll())).resources[0]
}

/**
 * The server copy `item` as the store may hold it: with a filter, read again within the scope,
 * so nothing where it no longer matches (the filter is Cosmos SQL). Asked where a copy comes in by
 * another way than a pull's pages (a conflict decided for it, a write set aside given up for it):
 * it may have left the filter before the checkpoint, where no pull looks.
 */
export function withinFilter(mirror: Mirror, item: CosmosItem): Promise<CosmosItem | undefined> | CosmosItem {
  return mirror.options.filter ? readServer(mirror, item.id, undefined) : item
}

/**
 * A conflict over `server`, the server's copy now: the app's (or the default) decision, written on
 * the condition that the server's copy is still the one it saw. If it changed meanwhile (412; a
 * create that finds an item, 409; a replace that finds none, 404), the decision is taken again
 * with the new copy; a refusal whose re-read shows no change is the server refusing the write.
 */
async function resolve(mirror: Mirror, id: string, local: CosmosItem | undefined, at: number, server: CosmosItem | undefined): Promise<Outcome> {
  const decide = mirror.options.onConflict ?? lastWriterWins
  for (;;) {
    const resolution: Resolution = await decide({ key: id, local, localAt: onServerClock(mirror, at), server })
    try {
      return await write(mirror, id, resolution === 'local' ? local : resolution === 'server' ? server : resolution, resolution === 'server', server)
    } catch (error) {
      if (![412, 409, 404].includes(statusOf(error) as number)) throw error
      const now = await readServer(mirror, id, server ? partitionKeyOf(mirror, server) : undefined)
      if (now?._etag === server?._etag) throw error
      server = now
    }
  }
}

/** Writes `wanted` (`undefined`: a delete) over `server`, on the condition that it is still that copy. */
async function write(mirror: Mirror, id: string, wanted: CosmosItem | undefined, keep: boolean, server: CosmosItem | undefined): Promise<Outcome> {
  const live = server && !isTombstone(mirror, server) ? server : undefined
  if (keep && live) return { item: await withinFilter(mirror, live) }
  if (keep || (wanted === undefined && !live)) return { item: server }
  if (wanted === undefined) return sendDelete(mirror, id, live!._etag, partitionKeyOf(mirror, live!))
  const body = toServer(mirror, wanted)
  const { container } = mirror
  const there = server && samePartition(partitionKeyOf(mirror, body), partitionKeyOf(mirror, server)) ? server : undefined
  // The server's copy in another partition (the item moved): deleted on the same condition first.
  if (live && !there) await sendDelete(mirror, id, live._etag, partitionKeyOf(mirror, live))
  const written = there
    ? call(mirror, () => container.item(id, partitionKeyOf(mirror, there)).replace<ItemDefinition>(body, ifMatch(there._etag!)))
    : call(mirror, () => container.items.create<ItemDefinition>(body))
  return { item: (await written).resource as CosmosItem }
}

/**
 * Ends the records sent, in one transaction: the server's copy (or its absence) becomes the
 * local item and the base of the next push, unless the item was written again since its record
 * was read; a record refused is set aside. Resolves to how many records left the queue, and how
 * many are set aside now.
 */
async function settle(mirror: Mirror, sent: Sent[]): Promise<{ left: number; rejected: number }> {
  const { store } = mirror
  return unobserved(mirror.db, store, [OUTBOX_STORE, SYNC_STORE], async (tx) => {
    const [queued, rejectedBefore] = await Promise.all([stillQueued(tx.raw, sent.map(({ record }) => record.seq)), countRejected(tx.raw, store)])
    let left = 0
    let setAsideNow = 0
    for (const done of sent) {
      const { record } = done
      // Its record replaced by a later write's, or gone: the item was written again.
      const again = !queued.has(record.seq)
      if ('refused' in done) {
        // Written again since: that write goes next, and may be taken.
        if (again) continue
        unqueue(tx.raw, record.seq)
        setAside(tx.raw, record, done.refused)
        left++
        setAsideNow++
        continue
      }
      // Our own write is the base of the newer one, whatever becomes of the local item.
      const item = done.outcome.item
      writeBase(tx.raw, store, record.key, item && baseOf(mirror, item))
      // A write of the key went through: what was set aside of it is behind it.
      if (rejectedBefore > 0) dropRejected(tx.raw, store, record.key)
      if (again) continue
      unqueue(tx.raw, record.seq)
      left++
      if (item && !isTombstone(mirror, item)) tx.put(onDeviceClock(mirror, item))
      else tx.delete(record.key)
    }
    // The keys of a batch differ: with none set aside before, those set aside are the batch's.
    return { left, rejected: rejectedBefore === 0 ? setAsideNow : await countRejected(tx.raw, store) }
  })
}

type Counts = { pending: number; rejected: number }

async function countsIn(tx: IDBTransaction, store: string): Promise<Counts> {
  const [pending, rejected] = await Promise.all([countQueued(tx, store), countRejected(tx, store)])
  return { pending, rejected }
}
