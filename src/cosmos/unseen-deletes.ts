/**
 * Whether the server may have deleted items this device has not seen go (a plain delete, or a
 * tombstone removed before a pull read it), learnt without listing every id: the server counts
 * the live items of the scope (`SELECT VALUE COUNT(1)`, one request, an answer of one number),
 * and the store counts its own (an index count). Only when they disagree does the pull list the
 * ids (`pull.ts` `removeGone`). A tombstone counts on neither side (gone here, left out there);
 * keys with a local write queued or set aside, or a server copy the store refused, on neither
 * side either (their local item is not the server's): the server is told them, a few ids, and a
 * round with more than {@link MOST_HELD} of them lists the ids instead.
 *
 * Counts that agree by chance (an item deleted, and another created after the round's pages and
 * before the count) hide the delete for that round only: the next round that counts finds it.
 */
import { OUTBOX_BY_KEY, OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import type { OutboxRecord } from '../layout/outbox.js'
import { req } from '../platform/request.js'
import { transactionOf } from '../handle/internal.js'
import { inPartition, liveScopeOf, readOnly, type Mirror } from './context.js'
import { withRetry } from './remote.js'
import { refusedOf } from './state.js'

/** Keys held (queued, set aside, refused) past which a round lists the ids rather than name them all in its count. */
const MOST_HELD = 100

/** Whether the server's count of the scope's live items differs from the store's (or could not be asked). */
export async function countsDisagree(mirror: Mirror): Promise<boolean> {
  const { container, db, store } = mirror
  const held = await readOnly(mirror, (tx) => heldKeys(tx, store))
  if (held.length > MOST_HELD) return true
  const { where, parameters } = liveScopeOf(mirror)
  const conditions = [...where, ...(held.length ? ['NOT ARRAY_CONTAINS(@idbTtlHeld, c.id)'] : [])]
  const query = {
    query: `SELECT VALUE COUNT(1) FROM c${conditions.length ? ` WHERE ${conditions.join(' AND ')}` : ''}`,
    parameters: [...parameters, ...(held.length ? [{ name: '@idbTtlHeld', value: held }] : [])],
  }
  const { resources } = await withRetry(() => container.items.query<number>(query, inPartition(mirror)).fetchAll(), mirror.retry)
  const onServer = resources.reduce((sum, count) => sum + count, 0)
  const here = await transactionOf(db, [store], 'readonly', async (tx) => {
    const [live, heldLive] = await Promise.all([tx.count(store), Promise.all(held.map((key) => tx.get(store, key)))])
    return live - heldLive.filter((item) => item !== undefined).length
  })
  return onServer !== here
}

/** The keys of `store` whose local item is not the server's: a write queued or set aside, a copy refused. */
async function heldKeys(tx: IDBTransaction, store: string): Promise<string[]> {
  const within = (...prefix: IDBValidKey[]) => IDBKeyRange.bound([store, ...prefix], [store, ...prefix, []])
  const sync = tx.objectStore(SYNC_STORE)
  const [queued, rejected, refused] = await Promise.all([
    req(tx.objectStore(OUTBOX_STORE).index(OUTBOX_BY_KEY).getAll(within())) as Promise<OutboxRecord[]>,
    req(sync.getAllKeys(within('rejected'))) as Promise<IDBValidKey[][]>,
    req(sync.getAllKeys(refusedOf(store))) as Promise<IDBValidKey[][]>,
  ])
  return [...new Set([...queued.map((record) => record.key), ...rejected.map((key) => key[2]), ...refused.map((key) => key[2])].map(String))]
}
