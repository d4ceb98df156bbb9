/**
 * What a pull page must know of its items before it writes them (`pull.ts`), read in a few
 * requests rather than several per item: whether a local write of each is queued (`outbox.ts`) or
 * set aside (`rejected.ts`), and the base each was last in step with (`state.ts`).
 *
 * Each of the three lives under a key prefix ending in the item's id, so what a page can find is
 * in the span of its ids (lowest to highest; Cosmos DB ids are strings, ordered alike by
 * IndexedDB and `<`). One count over that span comes first: empty (every page of a pull into an
 * empty store, the longest pull), nothing more is read; holding few entries besides the page's,
 * one read of the span; otherwise, one read per item.
 */
import { OUTBOX_BY_KEY, OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'
import type { OutboxRecord } from './outbox.js'
import { asBase, readBase, type Base } from './state.js'

/** A span is read whole when it holds at most this many entries per id of the page. */
const DENSE = 2

/** Per id: whether a local write of it is queued, or set aside (the pull leaves it alone), and its base. */
export interface PageItemState {
  queued: boolean
  rejected: boolean
  base: Base | undefined
}

/** The state of each of `ids` (the ids of one page, from the server), in their order. */
export async function readPageState(tx: IDBTransaction, store: string, ids: readonly string[]): Promise<PageItemState[]> {
  if (ids.length === 0) return []
  const byKey = tx.objectStore(OUTBOX_STORE).index(OUTBOX_BY_KEY)
  const sync = tx.objectStore(SYNC_STORE)
  const [queued, rejected, bases] = await Promise.all([
    lookUp(byKey, [store], ids, {
      span: async (range) => ((await req(byKey.getAll(range))) as OutboxRecord[]).map((record) => [record.key, true]),
      one: async (id) => (await req(byKey.getKey([store, id]))) !== undefined || undefined,
    }),
    lookUp(sync, [store, 'rejected'], ids, {
      span: async (range) => ((await req(sync.getAllKeys(range))) as IDBValidKey[][]).map((key) => [key[2], true]),
      one: async (id) => (await req(sync.count([store, 'rejected', id]))) > 0 || undefined,
    }),
    lookUp(sync, [store, 'etag'], ids, {
      span: async (range) => {
        const [keys, values] = await Promise.all([req(sync.getAllKeys(range)), req(sync.getAll(range))])
        return (keys as IDBValidKey[][]).map((key, i) => [key[2], asBase(values[i])])
      },
      one: (id) => readBase(tx, store, id),
    }),
  ])
  return ids.map((id) => ({ queued: queued.has(id), rejected: rejected.has(id), base: bases.get(id) }))
}

/** How one kind of entry is read: every entry of a range (as id and value), or one id's. */
interface Reads<T> {
  span(range: IDBKeyRange): Promise<[IDBValidKey, T][]>
  one(id: string): Promise<T | undefined>
}

/** The entries of `source` at `[...prefix, id]` for each of `ids` that has one, by id. */
async function lookUp<T>(source: IDBObjectStore | IDBIndex, prefix: IDBValidKey[], ids: readonly string[], reads: Reads<T>): Promise<Map<IDBValidKey, T>> {
  let low = ids[0]
  let high = ids[0]
  for (const id of ids) {
    if (id < low) low = id
    if (id > high) high = id
  }
  const range = IDBKeyRange.bound([...prefix, low], [...prefix, high])
  const count = await req(source.count(range))
  if (count === 0) return new Map()
  if (count <= DENSE * ids.length) return new Map(await reads.span(range))
  const found = new Map<IDBValidKey, T>()
  await Promise.all(
    ids.map(async (id) => {
      const value = await reads.one(id)
      if (value !== undefined) found.set(id, value)
    }),
  )
  return found
}
