/**
 * A dead item occupies nothing (SPEC §2). When a write is refused with `ConstraintError` (a key
 * for `add`, a value of a unique index), it is tried again in a transaction that also reads the
 * settings; there, a refused value's dead holders are deleted and the value is written once
 * more — in that same transaction, so the write stays all or nothing and a live holder still
 * refuses it with IndexedDB's own `ConstraintError`. Loaded by the page entries with the handle's
 * less common calls (`assembly/calls.ts`): at the first such refusal, or the first `update`.
 */
import { EXPIRY_INDEX } from '../layout/expiry-index.js'
import { cutoffs, isDeadMark, type Cutoffs } from '../rules/policy.js'
import { abortQuietly, keyId, keyPathValue, req } from '../platform/request.js'
import { deletedItem, type DeletedItem } from '../events/listeners.js'
import { markOfStored, stampAt } from '../layout/stamp.js'
import { begin, committedOrUndone, refusedAt, settingsFor, type Generations } from './write-steps.js'

type Item = Record<string, unknown>

/**
 * Issues `store[method](value, key)`; on `ConstraintError`, claims room from dead holders and
 * retries once. `cut` judges the holders (or reads what judges them, when a holder is found);
 * `onClaimed` hears the dead items deleted. Resolves to
 * the written key once the write succeeded; rejects (and the transaction aborts) otherwise.
 * Callers issue the next write only after this settles, so a batch keeps its order. `where`
 * names the value in errors (`store "s", item 3`). `onIssued` hears that the request was made
 * (not when IndexedDB refused the value at once: then nothing of it is in the transaction).
 */
export function putClaiming(
  store: IDBObjectStore,
  method: 'put' | 'add',
  value: Item,
  key: IDBValidKey | undefined,
  cut: Cutoffs | (() => Promise<Cutoffs>),
  onClaimed: (deleted: DeletedItem[]) => void,
  where: string,
  onIssued?: () => void,
): Promise<IDBValidKey> {
  return new Promise((resolve, reject) => {
    let request: IDBRequest<IDBValidKey>
    try {
      request = store[method](value, key)
    } catch (error) {
      return reject(refusedAt(error, where, store.keyPath))
    }
    onIssued?.()
    request.onsuccess = () => resolve(request.result)
    request.onerror = (event) => {
      if (request.error?.name !== 'ConstraintError') return reject(request.error)
      // Keep the transaction alive (no abort, no error on it): the same write follows.
      event.preventDefault()
      event.stopPropagation()
      void deadHolders(store, method, value, key, cut).then((holders) => {
        for (const holder of holders) store.delete(holder.key)
        onClaimed(holders)
        // Not guarded again: if a live item holds the value, this fails and aborts the transaction.
        const retry = store[method](value, key)
        retry.onsuccess = () => resolve(retry.result)
        retry.onerror = () => reject(retry.error)
      })
    }
  })
}

/** `writes.ts`'s `writeAll` once more, judging by the settings read just before (as its `writeReading`), claiming room from dead holders. */
export const writeClaiming: Generations['writeAll'] = async (ctx, storeName, checked, method, keys, now, where) => {
  const state = await settingsFor(ctx, storeName)
  const { tx, committed } = begin(ctx, [storeName])
  const store = tx.objectStore(storeName)
  const cut = cutoffs(state, now)
  const claimed: DeletedItem[] = []
  const written: IDBValidKey[] = []
  const stored = checked.map((value) => stampAt(value, now, state))
  try {
    // One after the other: a value retried after claiming room must not land after later ones.
    for (const [i, value] of stored.entries()) {
      written.push(await putClaiming(store, method, value, keys?.[i], cut, (items) => claimed.push(...items), where(i)))
    }
  } catch (error) {
    abortQuietly(tx)
    throw error
  }
  await committedOrUndone(ctx, storeName, committed, stored)
  return { result: written, claimed }
}

/** The dead items holding `value`'s key (for `add`) or its unique index values. */
async function deadHolders(store: IDBObjectStore, method: 'put' | 'add', value: Item, key: IDBValidKey | undefined, cut: Cutoffs | (() => Promise<Cutoffs>)): Promise<DeletedItem[]> {
  // Every request is issued before the first await: the transaction must not go idle meanwhile.
  const judging = typeof cut === 'function' ? cut() : cut
  const lookups: Promise<DeletedItem | undefined>[] = []
  const lookup = (source: IDBObjectStore | IDBIndex, query: unknown) => {
    // No key (an autoIncrement add, a value without the index's field): nothing held.
    if (query === undefined || query === null) return
    try {
      const cursor = req(source.openCursor(query as IDBValidKey))
      lookups.push(Promise.all([cursor, judging]).then(([c, by]) => (c && isDeadMark(markOfStored(c.value), by) ? deletedItem(store, c.primaryKey, c.value) : undefined)))
    } catch {
      // Not a valid key: IndexedDB does not index it, so it conflicts with nothing.
    }
  }
  if (method === 'add') lookup(store, key ?? (store.keyPath === null ? undefined : keyPathValue(value, store.keyPath)))
  for (const name of Array.from(store.indexNames)) {
    const index = store.index(name)
    if (!index.unique || name === EXPIRY_INDEX) continue
    const indexed = keyPathValue(value, index.keyPath)
    for (const entry of index.multiEntry && Array.isArray(indexed) ? indexed : [indexed]) lookup(index, entry)
  }
  const holders = new Map<string, DeletedItem>()
  for (const holder of await Promise.all(lookups)) if (holder !== undefined) holders.set(keyId(holder.key), holder)
  return [...holders.values()]
}
