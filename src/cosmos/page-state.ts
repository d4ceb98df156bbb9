/**
 * What a pull page must know of its items before it writes them (`pull.ts`): whether a local
 * write of each is queued (`outbox.ts`) or set aside (`rejected.ts`), whether an earlier copy of
 * it was refused by the store (`rejected.ts`), and the base each was last in step with
 * (`state.ts`).
 *
 * Queued and set-aside writes are few, and usually none: each kind lives under a key prefix
 * ending in the item's id, so a page's are in the span of its ids (lowest to highest; Cosmos DB
 * ids are strings, ordered alike by IndexedDB and `<`), read whole in one request, and again id
 * by id only where the span holds more than a few entries per id. Bases are as many as the items
 * pulled, and a page's ids are spread over them (`ORDER BY _ts`, not by id): each is read by its
 * key, where a Bloom filter spares the disk a missing one.
 */
import { OUTBOX_BY_KEY, OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'
import type { OutboxRecord } from '../layout/outbox.js'
import { readBase, type Base } from './state.js'

/** A span is read whole when it holds at most this many entries per id of the page. */
const DENSE = 2

/** Per id: whether a local write of it is queued, or set aside (the pull leaves it alone), whether a copy of it was refused, and its base. */
export interface PageItemState {
  queued: boolean
  rejected: boolean
  refused: boolean
  base: Base | undefined
}

/** The state of each of `ids` (the ids of one page, from the server), in their order. */
export async function readPageState(tx: IDBTransaction, store: string, ids: readonly string[]): Promise<PageItemState[]> {
  if (ids.length === 0) return []
  const byKey = tx.objectStore(OUTBOX_STORE).index(OUTBOX_BY_KEY)
  const sync = tx.objectStore(SYNC_STORE)
  const keysIn = async (range: IDBKeyRange, count: number) => ((await req(sync.getAllKeys(range, count))) as IDBValidKey[][]).map((key) => key[2])
  const [queued, rejected, refused, bases] = await Promise.all([
    held([store], ids, {
      span: async (range, count) => ((await req(byKey.getAll(range, count))) as OutboxRecord[]).map((record) => record.key),
      one: async (id) => (await req(byKey.getKey([store, id]))) !== undefined,
    }),
    held([store, 'rejected'], ids, { span: keysIn, one: async (id) => (await req(sync.count([store, 'rejected', id]))) > 0 }),
    held([store, 'refused'], ids, { span: keysIn, one: async (id) => (await req(sync.count([store, 'refused', id]))) > 0 }),
    Promise.all(ids.map((id) => readBase(tx, store, id))),
  ])
  return ids.map((id, i) => ({ queued: queued.has(id), rejected: rejected.has(id), refused: refused.has(id), base: bases[i] }))
}

/** How one kind of entry is found: the ids of the first `count` entries of a range, or whether one id has one. */
interface Finds {
  span(range: IDBKeyRange, count: number): Promise<IDBValidKey[]>
  one(id: string): Promise<boolean>
}

/** Which of `ids` have an entry at `[...prefix, id]`. */
async function held(prefix: IDBValidKey[], ids: readonly string[], finds: Finds): Promise<Set<IDBValidKey>> {
  let low = ids[0]
  let high = ids[0]
  for (const id of ids) {
    if (id < low) low = id
    if (id > high) high = id
  }
  const most = DENSE * ids.length
  const spanned = await finds.span(IDBKeyRange.bound([...prefix, low], [...prefix, high]), most + 1)
  if (spanned.length <= most) return new Set(spanned)
  const found = await Promise.all(ids.map((id) => finds.one(id)))
  return new Set(ids.filter((_, i) => found[i]))
}
