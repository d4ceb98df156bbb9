/**
 * Writes that stamp `_ts` and keep the expiry mark. Values are validated and stamped before any
 * transaction opens, and every write resolves only once its transaction has committed.
 */
import { writeClaiming } from './claim.js'
import { formatKey, TtlError } from './errors.js'
import { META_STORE } from './expiry-index.js'
import { changeDefault, cutoffs, isDeadMark, type StoreState } from './policy.js'
import { abortQuietly, done, keyPathValue, req } from './request.js'
import { check, markOfStored, stampAt, unstamp, type Checked } from './stamp.js'
import { checkDefaultTtl, type DefaultTtl, type TtlValues } from './ttl.js'

export interface WriteContext {
  db: IDBDatabase
  clock: () => number
  mode: TtlValues
  durability?: IDBTransactionDurability
}

type Item = Record<string, unknown>

/** What a write did besides writing: dead items deleted to make room for it. */
export interface Written<T> {
  result: T
  claimed: number
}

function begin(ctx: WriteContext, stores: string[]): { tx: IDBTransaction; committed: Promise<void> } {
  const tx = ctx.db.transaction(stores, 'readwrite', { durability: ctx.durability })
  const committed = done(tx)
  // A rejection we report through the caller's own error must not surface as unhandled.
  committed.catch(() => {})
  return { tx, committed }
}

/**
 * Stores every value in one transaction: all or nothing. `method` is `put` or `add`; `keys`
 * gives out-of-line keys; `batch` numbers the items in error messages. Resolves to the keys
 * after commit.
 */
export async function writeAll(
  ctx: WriteContext,
  storeName: string,
  values: readonly unknown[],
  method: 'put' | 'add',
  keys?: readonly (IDBValidKey | undefined)[],
  batch = false,
): Promise<Written<IDBValidKey[]>> {
  const now = ctx.clock()
  // Indexes, not map(): a hole in the array is a value too (undefined), and is refused.
  const checked = Array.from(values, (value, i) =>
    check(value, ctx.mode, batch ? `store "${storeName}", item ${i}` : `store "${storeName}"`),
  )
  let known: StoreState | undefined
  for (;;) {
    const outcome = await attempt(ctx, storeName, checked, method, keys, now, known)
    if (!('restamp' in outcome)) return outcome
    known = outcome.restamp
  }
}

/**
 * One try of {@link writeAll}. Values are stamped by the clock alone, while the store's settings
 * are read in the same transaction; if a stamp fell below what earlier settings left dead (the
 * clock stepped back, or another connection's clock is ahead), the transaction is abandoned and
 * the caller writes again with those settings known, so no write is ever born dead.
 */
async function attempt(
  ctx: WriteContext,
  storeName: string,
  checked: readonly Checked[],
  method: 'put' | 'add',
  keys: readonly (IDBValidKey | undefined)[] | undefined,
  now: number,
  known: StoreState | undefined,
): Promise<Written<IDBValidKey[]> | { restamp: StoreState }> {
  const { tx, committed } = begin(ctx, [storeName, META_STORE])
  const store = tx.objectStore(storeName)
  const settings = tx.objectStore(META_STORE).get(storeName)
  const cut = () => cutoffs(settings.result, now)
  const items = checked.map((value) => stampAt(value, now, known))
  let restamp: StoreState | undefined
  settings.onsuccess = () => {
    if (items.some((item) => isDeadMark(markOfStored(item), cut()))) {
      restamp = settings.result
      abortQuietly(tx)
    }
  }
  let claimed = 0
  let written: (() => IDBValidKey)[]
  try {
    written = items.map((item, i) => writeClaiming(store, method, item, keys?.[i], cut, (n) => (claimed += n)))
  } catch (error) {
    abortQuietly(tx)
    throw error
  }
  try {
    await committed
  } catch (error) {
    if (restamp) return { restamp }
    throw error
  }
  return { result: written.map((key) => key()), claimed }
}

/**
 * Rewrites the live item at `key` with `changes` merged in (or what `changes` returns, called
 * once), stamping a new `_ts`. Resolves to the item as reads now return it.
 * @throws TtlError `NOT_FOUND` when no live item holds `key`; `INVALID_VALUE` when the change
 * would move the item to another key
 */
export async function update(
  ctx: WriteContext,
  storeName: string,
  key: IDBValidKey,
  changes: Item | ((item: Item) => Item),
): Promise<Written<Item>> {
  const now = ctx.clock()
  const { tx, committed } = begin(ctx, [storeName, META_STORE])
  const store = tx.objectStore(storeName)
  const settings = req<StoreState>(tx.objectStore(META_STORE).get(storeName))
  const existing = await req(store.get(key))
  try {
    const state = await settings
    const cut = cutoffs(state, now)
    const where = `store "${storeName}", key ${formatKey(key)}`
    if (existing === undefined || isDeadMark(markOfStored(existing), cut)) {
      throw new TtlError('NOT_FOUND', `${where}: no live item to update`)
    }
    const current = unstamp(existing) as Item
    const next = stampAt(check(typeof changes === 'function' ? changes(current) : { ...current, ...changes }, ctx.mode, where), now, state)
    if (store.keyPath !== null && indexedDB.cmp(keyPathValue(next, store.keyPath) as IDBValidKey, key) !== 0) {
      throw new TtlError('INVALID_VALUE', `${where}: an update cannot change the key of an item`)
    }
    let claimed = 0
    writeClaiming(store, 'put', next, store.keyPath === null ? key : undefined, () => cut, (n) => (claimed += n))
    await committed
    return { result: unstamp(next), claimed }
  } catch (error) {
    abortQuietly(tx)
    throw error
  }
}

export async function remove(ctx: WriteContext, storeName: string, query: IDBValidKey | IDBKeyRange): Promise<void> {
  const { tx, committed } = begin(ctx, [storeName])
  tx.objectStore(storeName).delete(query)
  await committed
}

export async function clear(ctx: WriteContext, storeName: string): Promise<void> {
  const { tx, committed } = begin(ctx, [storeName])
  tx.objectStore(storeName).clear()
  await committed
}

/** Switches the default in constant time; what the old one had killed stays dead. */
export async function setDefaultTtl(ctx: WriteContext, storeName: string, value: DefaultTtl): Promise<StoreState> {
  const defaultTtl = checkDefaultTtl(value)
  const { tx, committed } = begin(ctx, [META_STORE])
  const meta = tx.objectStore(META_STORE)
  const next = changeDefault(await req<StoreState>(meta.get(storeName)), defaultTtl, ctx.clock())
  meta.put(next, storeName)
  await committed
  return next
}
