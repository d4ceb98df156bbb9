/**
 * Runs a callback in one IndexedDB transaction (SPEC §11): all or nothing, resolving once the
 * transaction committed, and handing what it did to `afterCommit` only then.
 */
import { asClosed } from '../layout/connection.js'
import { abortQuietly, done } from '../platform/request.js'
import type { UndoLeaked } from '../purge/undo-leaked.js'
import { readSettings } from '../layout/held-settings.js'
import { isQuotaError } from '../platform/storage.js'
import { Transaction, type Effects, type TxSetup } from './transaction.js'

export interface RunOptions extends Omit<TxSetup, 'tx' | 'settings'> {
  db: IDBDatabase
  /** The library's own stores the transaction also holds (observers' stores). */
  extra: readonly string[]
  writable: boolean
  durability: IDBTransactionDurability | undefined
  /** Told once the transaction was created (the handle's order of calls, `handle/turns.ts`). */
  opened?: () => void
  /** Deletes what the transaction, refused for lack of space, left behind: the handle's (`CoreRoutes.undoLeaked`). */
  undoLeaked: UndoLeaked
}

/**
 * Runs `callback` with a {@link Transaction} over `options.stores`. Rejects with the callback's
 * error, a failed request's, or `TRANSACTION_INACTIVE` — the callback let the transaction end
 * early; what it wrote before then committed, and `afterCommit` hears of it.
 */
export async function runTransaction<T>(options: RunOptions, callback: (tx: Transaction) => T | Promise<T>, afterCommit: (effects: Effects) => Promise<void>): Promise<T> {
  const { db, stores, extra, writable, durability } = options
  let raw: IDBTransaction
  let settings: TxSetup['settings']
  try {
    // The settings store is not in the transaction: every read holds it, and would wait for the
    // transaction (SPEC §11). Read before it opens, not beside it: in Firefox and WebKit on disk a
    // read-only transaction queued behind another writer may wait for this one to end
    // (test/engines/quirks.ts), so waiting for it inside would wait for ever. They are the
    // settings of the transaction's instant.
    settings = await readSettings(db, stores)
    raw = db.transaction([...stores, ...extra], writable ? 'readwrite' : 'readonly', { durability })
    options.opened?.()
  } catch (error) {
    throw asClosed(db, error)
  }
  const committed = done(raw)
  committed.catch(() => {})
  const tx = new Transaction({ ...options, tx: raw, settings })
  let result: T
  try {
    result = await callback(tx)
  } catch (error) {
    abortQuietly(raw)
    // Ended early by IndexedDB, the transaction may have committed what came before the error.
    if (await committed.then(() => true, () => false)) await afterCommit(tx.effects)
    throw error
  }
  try {
    await committed
  } catch (error) {
    // Firefox at its quota may leave some writes of a refused transaction behind: none may stay.
    if (isQuotaError(error)) for (const [store, items] of tx.effects.stored) await options.undoLeaked(db, store, items).catch(() => {})
    if (tx.abandoned) throw tx.abandoned.error
    throw asClosed(db, error)
  }
  await afterCommit(tx.effects)
  if (tx.inactive) throw tx.inactive
  return result
}
