/**
 * The write-observer hook and transactions of `src/transaction/` (SPEC §11), as the mirror uses
 * them. INTERIM until that folder lands on main: the same interface, with no observer (local
 * writes are not queued by themselves yet) and a transaction that writes the library's stores
 * and the items in two steps. Swapped for a re-export after the merge.
 */
import type { TtlDB } from '../db.js'
import { done } from '../platform/request.js'
import { internalsOf } from './internals.js'

export interface WriteObserver {
  /** Library stores the observer writes, added to every observed write's transaction. */
  readonly stores: readonly string[]
  /** Called inside the write's transaction with the item as reads now return it (`_ts` included). */
  put(tx: IDBTransaction, key: IDBValidKey, item: Record<string, unknown>): void
  /** Called inside the write's transaction per key deleted. */
  delete(tx: IDBTransaction, key: IDBValidKey): void
}

/** Whether local writes are queued by the hook (`false` while this stand-in is in place). */
export const OBSERVING: boolean = false

export function observeWrites(_db: TtlDB<any>, _store: string, _observer: WriteObserver): () => void {
  return () => {}
}

/** The part of a transaction the mirror writes through: items of one store, and the raw transaction. */
export interface MirrorTx {
  raw: IDBTransaction
  put(value: Record<string, unknown>): void
  delete(key: IDBValidKey): void
}

/** Runs `callback` in one transaction over `store` and `extra` (library stores), unobserved. */
export async function unobserved<T>(db: TtlDB<any>, store: string, extra: readonly string[], callback: (tx: MirrorTx) => Promise<T>): Promise<T> {
  const raw = (await internalsOf(db, store).native()).transaction([...extra], 'readwrite')
  const committed = done(raw)
  committed.catch(() => {})
  const puts: Record<string, unknown>[] = []
  const deletes: IDBValidKey[] = []
  const result = await callback({ raw, put: (value) => puts.push(value), delete: (key) => deletes.push(key) })
  await committed
  if (puts.length > 0) await db.putAll(store, puts)
  for (const key of deletes) await db.delete(store, key)
  return result
}
