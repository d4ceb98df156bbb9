/**
 * The outbox's read side: local writes of mirrored stores not yet pushed, queued by the writes
 * themselves (`layout/outbox.ts`), read and removed by the push.
 */
import type { OutboxRecord } from '../layout/outbox.js'
import { OUTBOX_BY_KEY, OUTBOX_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'

/** A record with its place in the queue. */
export interface Queued extends OutboxRecord {
  seq: number
}

/** The key's record, if one is queued. */
export async function queuedAt(tx: IDBTransaction, store: string, key: IDBValidKey): Promise<Queued | undefined> {
  const index = tx.objectStore(OUTBOX_STORE).index(OUTBOX_BY_KEY)
  const seq = (await req(index.getKey([store, key]))) as number | undefined
  if (seq === undefined) return undefined
  const record = await req<OutboxRecord | undefined>(tx.objectStore(OUTBOX_STORE).get(seq))
  return record && { ...record, seq }
}

/**
 * Up to `count` records of `store`, oldest first, from `after` on: read `count` at a time (other
 * stores' records between them skipped), so that a long queue is read once, not once per batch.
 */
export async function nextQueued(tx: IDBTransaction, store: string, after: number, count: number): Promise<Queued[]> {
  const outbox = tx.objectStore(OUTBOX_STORE)
  const out: Queued[] = []
  for (let from = after; out.length < count; ) {
    const range = IDBKeyRange.lowerBound(from, true)
    const [records, seqs] = await Promise.all([req(outbox.getAll(range, count)), req(outbox.getAllKeys(range, count))])
    for (const [i, record] of (records as OutboxRecord[]).entries()) {
      if (record.store === store && out.length < count) out.push({ ...record, seq: seqs[i] as number })
    }
    if (seqs.length < count) break
    from = seqs[seqs.length - 1] as number
  }
  return out
}

/**
 * Which of `seqs` are still queued: a record leaves the queue when pushed, or when a later write
 * of its key replaces it. One read of their span (other stores' records in it included).
 */
export async function stillQueued(tx: IDBTransaction, seqs: readonly number[]): Promise<Set<number>> {
  if (seqs.length === 0) return new Set()
  const range = IDBKeyRange.bound(Math.min(...seqs), Math.max(...seqs))
  return new Set((await req(tx.objectStore(OUTBOX_STORE).getAllKeys(range))) as number[])
}

/** How many records of `store` are queued. */
export async function countQueued(tx: IDBTransaction, store: string): Promise<number> {
  const range = IDBKeyRange.bound([store], [store, []])
  return req(tx.objectStore(OUTBOX_STORE).index(OUTBOX_BY_KEY).count(range))
}

/** Removes the record numbered `seq`. */
export function unqueue(tx: IDBTransaction, seq: number): void {
  tx.objectStore(OUTBOX_STORE).delete(seq)
}
