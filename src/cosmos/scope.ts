/**
 * The mirror's scope (SPEC §12b): the container, the partition key value and the filter a store
 * mirrors, kept with the store (`SYNC_STORE`, `[store, 'scope']`). A `syncCosmos` of another
 * scope (a user signs out, another signs in) changes the store before its first round, so that
 * nothing of the old scope is shown, kept or pushed in the new one:
 *
 * - Another container or partition key value: every local item (expired ones too, not yet
 *   purged) and its base go, and the pull starts over. Writes of the old scope not yet pushed (queued or set aside) are parked on the
 *   device with their items (`[store, 'parked', partition, key]`), never pushed into the new
 *   partition; they come back, queued (or set aside) as they were, when their partition is
 *   mirrored again.
 * - Only another filter: the items with a write not yet pushed stay, still queued (they are the
 *   same partition's); the others go, and the pull starts over.
 *
 * Either way a write held (queued or set aside, or parked) keeps the base it was made on: a
 * delete reaches the server by it, an edit goes with `If-Match` on it.
 *
 * A store is mirrored in one scope at a time, for every tab: each change of scope numbers the
 * scope anew (its `generation`), and a sync keeps the number of the scope it adopted. A sync whose
 * scope was replaced since (by another tab's `syncCosmos`, say) finds another number kept with the
 * store (`ownsScope`) and stops, rather than pull its partition into the store another scope shows,
 * or push that scope's writes into its partition.
 */
import { queue, type OutboxRecord } from '../layout/outbox.js'
import { unstamp } from '../layout/stamp.js'
import { OUTBOX_BY_KEY, OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'
import type { QueueStamp } from '../transaction/mirror-queue.js'
import type { Mirror } from './context.js'
import { unobserved, type MirrorTx } from './hook.js'
import { dropRejected, keepRejected, listRejected } from './rejected.js'
import { forgetServer, readBase, readCheckpoint, writeBase, type Base } from './state.js'
import type { Rejected } from './types.js'

interface Scope {
  /** The container and partition key value, as JSON: where the store's items live. */
  partition: string
  filter: string
  /** Raised at each change of scope (none: kept by a version before it, 0). */
  generation?: number
}

/** A write of another partition, not yet pushed, kept on the device until it is mirrored again. */
interface Parked {
  item?: Record<string, unknown>
  queued?: OutboxRecord
  rejected?: Rejected
  /** The server copy the write was made on (`state.ts`), if it came from the server. */
  base?: Base
}

const scopeKey = (store: string) => [store, 'scope']
const within = (store: string, ...path: unknown[]) => IDBKeyRange.bound([store, ...path], [store, ...path, []])

/** The scope `mirror` is asked to mirror. */
function scopeNow(mirror: Mirror): Scope {
  const { container, options } = mirror
  return { partition: JSON.stringify([container.database.id, container.id, options.partitionKey ?? null]), filter: JSON.stringify(options.filter ?? null) }
}

/**
 * The scope the store mirrored last: as kept, or, for a store a version before scopes mirrored,
 * as its checkpoint's source names it (`pull.ts`: container, partition key value, filter).
 */
async function scopeKept(tx: IDBTransaction, store: string): Promise<Scope | undefined> {
  const [kept, checkpoint] = await Promise.all([req<Scope | undefined>(tx.objectStore(SYNC_STORE).get(scopeKey(store))), readCheckpoint(tx, store)])
  if (kept || !checkpoint?.source) return kept
  const [database, container, partitionKey, filter] = JSON.parse(checkpoint.source) as unknown[]
  return { partition: JSON.stringify([database, container, partitionKey]), filter: JSON.stringify(filter) }
}

/** Whether the store last mirrored another scope than `mirror`'s (a first scope is no change). */
export async function scopeChanged(mirror: Mirror): Promise<boolean> {
  const [kept, now] = [await scopeKept((await mirror.internals.native()).transaction(SYNC_STORE), mirror.store), scopeNow(mirror)]
  return kept !== undefined && (kept.partition !== now.partition || kept.filter !== now.filter)
}

/**
 * Whether the store still mirrors the scope numbered `generation` (the one a sync adopted): no
 * other scope has replaced it since. Read in `tx`, the transaction of what depends on it.
 */
export async function ownsScope(tx: IDBTransaction, store: string, generation: number): Promise<boolean> {
  return ((await scopeKept(tx, store))?.generation ?? 0) === generation
}

/**
 * Makes the store hold `mirror`'s scope (see the module's doc); a no-op when it already does.
 * Writes queued by the connection of the `syncCosmos` call after it (`since`, its `queueStamp`)
 * are the new scope's: they stay. Every other write queued was made under the scope kept (another
 * tab's, whatever its clock says: its stamps are not ordered with this connection's). Resolves to
 * the scope's number (`ownsScope`).
 */
export async function rescope(mirror: Mirror, since: QueueStamp): Promise<number> {
  const { db, store } = mirror
  return unobserved(db, store, [OUTBOX_STORE, SYNC_STORE], async (tx) => {
    const sync = tx.raw.objectStore(SYNC_STORE)
    const kept = await scopeKept(tx.raw, store)
    const asked = scopeNow(mirror)
    const same = kept !== undefined && kept.partition === asked.partition && kept.filter === asked.filter
    const now = { ...asked, generation: kept === undefined ? 0 : (kept.generation ?? 0) + (same ? 0 : 1) }
    sync.put(now, scopeKey(store))
    if (!kept || same) return now.generation
    const [items, rejected, queuedRecords] = await Promise.all([storedItems(tx.raw, store), listRejected(tx.raw, store), queuedOf(tx.raw, store)])
    const held = [...new Set<IDBValidKey>([...queuedRecords.map((record) => record.key), ...rejected.map((record) => record.key)])]
    // A held write keeps the server copy it was made on: a delete has nothing else to reach the
    // server by (its item is gone), an edit goes with If-Match on it.
    const bases = new Map(await Promise.all(held.map(async (key) => [key, await readBase(tx.raw, store, key)] as const)))
    forgetServer(tx.raw, store)
    if (kept.partition === now.partition) {
      for (const [key, base] of bases) if (base) writeBase(tx.raw, store, key, base)
      for (const item of items) if (!bases.has(item.id as IDBValidKey)) tx.delete(item.id as string)
      return now.generation
    }
    const byKey = new Map(items.map((item) => [item.id, item]))
    const ours = new Set(queuedRecords.filter((record) => record.writer === since.writer && record.stamp! > since.stamp).map((record) => record.key))
    const parked = new Map<IDBValidKey, Parked>()
    for (const record of queuedRecords) if (!ours.has(record.key)) parked.set(record.key, { item: byKey.get(record.key), queued: record, base: bases.get(record.key) })
    for (const record of rejected) if (!ours.has(record.key)) parked.set(record.key, { ...parked.get(record.key), item: byKey.get(record.key), rejected: record, base: bases.get(record.key) })
    for (const [key, value] of parked) sync.put(value, [store, 'parked', kept.partition, key])
    for (const record of queuedRecords) if (!ours.has(record.key)) tx.raw.objectStore(OUTBOX_STORE).delete(record.seq)
    for (const record of rejected) dropRejected(tx.raw, store, record.key)
    for (const item of items) if (!ours.has(item.id as IDBValidKey)) tx.delete(item.id as IDBValidKey)
    await unpark(tx, sync, store, now.partition, ours)
    return now.generation
  })
}

/**
 * Every item the store holds, as the app wrote it: expired ones too, not yet purged. The scope
 * left must leave no record behind, dead or not: a longer TTL in the new scope (the container's,
 * followed by the store) would bring it back to life there.
 */
async function storedItems(tx: IDBTransaction, store: string): Promise<Record<string, unknown>[]> {
  return (await req<Record<string, unknown>[]>(tx.objectStore(store).getAll())).map(unstamp)
}

/** The outbox records of `store`, with their numbers. */
async function queuedOf(tx: IDBTransaction, store: string): Promise<(OutboxRecord & { seq: number })[]> {
  const index = tx.objectStore(OUTBOX_STORE).index(OUTBOX_BY_KEY)
  // In the index's order both: each record beside its number.
  const [records, seqs] = await Promise.all([req<OutboxRecord[]>(index.getAll(within(store))), req(index.getAllKeys(within(store)))])
  return records.map((record, i) => ({ ...record, seq: seqs[i] as number }))
}

/**
 * Brings back the writes parked for `partition`: their items, queued or set aside as they were.
 * A key the new scope wrote already (`newer`: a write after the switch, made before it landed) keeps
 * that write, which supersedes the parked one, as a later write of a key replaces its record; the
 * parked write's base stays, the server copy both were made on.
 */
async function unpark(tx: MirrorTx, sync: IDBObjectStore, store: string, partition: string, newer: ReadonlySet<IDBValidKey>): Promise<void> {
  const range = within(store, 'parked', partition)
  const [values, keys] = await Promise.all([req<Parked[]>(sync.getAll(range)), req(sync.getAllKeys(range))])
  for (const [i, { item, queued, rejected, base }] of values.entries()) {
    const key = queued?.key ?? rejected!.key
    if (base) writeBase(tx.raw, store, key, base)
    sync.delete(keys[i])
    if (rejected) keepRejected(tx.raw, store, rejected)
    if (newer.has(key)) continue
    if (item) tx.put(item)
    if (queued) queue(tx.raw, { store, key, op: queued.op, at: queued.at })
  }
}
