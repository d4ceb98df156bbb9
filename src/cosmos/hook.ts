/**
 * The mirror's writes to the local store: in one transaction (`handle/internal.ts`) with the
 * library's own stores, unheard by the write observers (they are the server's writes, not the
 * app's: nothing to push back), and its reads of the store in a round.
 */
import type { TtlDB } from '../assembly/db.js'
import { transactionOf } from '../handle/internal.js'
import type { Transaction } from '../transaction/transaction.js'

/** The part of a transaction the mirror writes through: items of one store, and the raw transaction. */
export interface MirrorTx {
  raw: IDBTransaction
  put(value: Record<string, unknown>): void
  delete(key: IDBValidKey): void
  /** The live item at `key`. */
  get(key: IDBValidKey): Promise<unknown>
  /** `error` in its words, where it is a refusal of the store's checks (`Transaction.words`). */
  words(error: unknown): unknown
}

/** Runs `callback` in one transaction over `store` and `extra` (library stores), unobserved. */
export function unobserved<T>(db: TtlDB<any>, store: string, extra: readonly string[], callback: (tx: MirrorTx) => Promise<T>): Promise<T> {
  return transactionOf(
    db,
    [store],
    'readwrite',
    async (tx) => {
      const writes: Promise<unknown>[] = []
      // Awaited after the callback, which may await its own reads meanwhile: a refused write must
      // not count as unhandled until then (the callback's caller hears it through Promise.all).
      const issue = (write: Promise<unknown>) => {
        write.catch(() => {})
        writes.push(write)
      }
      const result = await callback({
        raw: tx.raw,
        put: (value) => issue(tx.put(store, value)),
        delete: (key) => issue(tx.delete(store, key)),
        get: (key) => tx.get(store, key),
        words: (error) => tx.words(error),
      })
      await Promise.all(writes)
      return result
    },
    { observed: false, extra },
  )
}

/**
 * Reads `store` in a transaction of the library's own, as a round does under its Web Lock: past
 * the store's gate (`Routes.gate`), whose change of scope waits for that lock, and the app's calls.
 */
export function readUnobserved<T>(db: TtlDB<any>, store: string, read: (tx: Transaction) => Promise<T>): Promise<T> {
  return transactionOf(db, [store], 'readonly', read, { observed: false })
}
