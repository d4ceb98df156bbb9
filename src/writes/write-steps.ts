/** What every write path shares: its context and its transaction (how `update` merges: `update.ts`). */
import { formatKey } from '../rules/errors.js'
import type { DeletedItem } from '../events/listeners.js'
import type { UndoLeaked } from '../purge/undo-leaked.js'
import { isQuotaError } from '../platform/storage.js'
import { done } from '../platform/request.js'
import { asClosed } from '../layout/connection.js'
import type { Checked } from '../layout/stamp.js'
import { readSettings } from '../layout/held-settings.js'
import type { StoreState } from '../rules/policy.js'
import type { TtlValues } from '../rules/ttl.js'
import type { GenerationValues } from '../generations/values.js'

export interface WriteContext {
  db: IDBDatabase
  clock: () => number
  mode: TtlValues
  durability?: IDBTransactionDurability
  /** The store keeps a value's own `_ts` (see `StoreConfig.keepTs`). */
  keepTs?: boolean
  /**
   * How the handle reads and writes stores that keep their values in generations: a full
   * handle's (`stashed-writes.ts`). `idb-ttl/core`'s has none: it refuses such stores.
   */
  generations?: Generations
  /**
   * Told once the write created its transaction ({@link begin}): the handle lets the calls made
   * after it on the store create theirs (`handle/turns.ts`).
   */
  began?: () => void
  /**
   * Deletes what a transaction refused for lack of space left behind (`purge/undo-leaked.ts`):
   * the handle's, which loads it with quota relief's steps, at the first full disk (issue #44).
   */
  undoLeaked: UndoLeaked
}

export type Item = Record<string, unknown>

/**
 * Writes and reads of the stores that keep their values in generations (`stashed-writes.ts`):
 * `writeAll` is `writes.ts`'s for them, given the checked values to stamp at `now`; `update` is
 * its `update`.
 */
export interface Generations extends GenerationValues {
  writeAll(
    ctx: WriteContext,
    storeName: string,
    checked: readonly Checked[],
    method: 'put' | 'add',
    keys: readonly (IDBValidKey | undefined)[] | undefined,
    now: number,
    where: (i: number) => string,
  ): Promise<Written<IDBValidKey[]>>
  update(ctx: WriteContext, storeName: string, key: IDBValidKey, changes: Changes): Promise<Written<Item>>
}

/** What a write did besides writing: dead items deleted to make room for it. */
export interface Written<T> {
  result: T
  claimed: DeletedItem[]
}

/** A change `update` applies: fields to merge, or a function returning the new item. */
export type Changes = Item | ((item: Item) => Item)

/** How messages name the item at `key` of a store: `store "s", key "a"`. */
export function itemAt(storeName: string, key: IDBValidKey): string {
  return `store "${storeName}", key ${formatKey(key)}`
}

/**
 * IndexedDB's own error for a value it refused at once — `DataError` (no valid key where the
 * store needs one), `DataCloneError` (a value it cannot store) — with where: `where` names the
 * store and, in `putAll`, the item's position (README, API); other errors as they are.
 */
export function refusedAt(error: unknown, where: string, keyPath: string | string[] | null): unknown {
  const { name, message } = (error ?? {}) as DOMException
  if (name === 'DataCloneError') return new DOMException(`${where}: ${message}`, name)
  if (name !== 'DataError') return error
  const path = keyPath === null ? 'none: the store takes out-of-line keys, given to the write' : JSON.stringify(keyPath)
  return new DOMException(`${where}: the value has no valid key (key path ${path}): ${message}`, name)
}

/** The settings of `storeName` as the realm holds them, or read first and learnt (`writes.ts` writeReading: not in the write's transaction, which would hold the settings store). */
export async function settingsFor(ctx: WriteContext, storeName: string): Promise<StoreState> {
  try {
    return (await readSettings(ctx.db, [storeName])).get(storeName)!
  } catch (error) {
    throw asClosed(ctx.db, error)
  }
}

/** Runs `write`; one cut short by the handle's `close()` rejects with TtlError `CLOSED`. */
export async function unlessClosed<T>(db: IDBDatabase, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    throw asClosed(db, error)
  }
}

export function begin(ctx: WriteContext, stores: string[]): { tx: IDBTransaction; committed: Promise<void> } {
  let tx: IDBTransaction
  try {
    tx = ctx.db.transaction(stores, 'readwrite', { durability: ctx.durability })
  } catch (error) {
    throw asClosed(ctx.db, error)
  }
  ctx.began?.()
  const committed = done(tx)
  // A rejection we report through the caller's own error must not surface as unhandled.
  committed.catch(() => {})
  return { tx, committed }
}

/**
 * Waits for the commit. A transaction refused for lack of space may have left some of its writes
 * behind (Firefox at its quota): those are deleted again before the write rejects (and quota relief
 * tries it again), so that a refused write stores nothing.
 */
export async function committedOrUndone(ctx: WriteContext, storeName: string, committed: Promise<void>, stored: readonly Item[]): Promise<void> {
  try {
    await committed
  } catch (error) {
    if (isQuotaError(error)) await ctx.undoLeaked(ctx.db, storeName, stored).catch(() => {})
    throw error
  }
}
