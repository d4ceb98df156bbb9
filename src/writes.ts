/**
 * Writes that stamp `_ts` and keep the expiry mark. Values are validated and stamped before any
 * transaction opens, and every write resolves only once its transaction has committed.
 */
import { TtlError } from './errors.js'
import { META_STORE } from './expiry-index.js'
import { changeDefault, cutoffs, isDeadMark, type StoreState } from './policy.js'
import { abortQuietly, done, keyPathValue, req } from './request.js'
import { markOfStored, stamp, unstamp } from './stamp.js'
import { checkDefaultTtl, type DefaultTtl, type TtlValues } from './ttl.js'

export interface WriteContext {
  db: IDBDatabase
  clock: () => number
  mode: TtlValues
  durability?: IDBTransactionDurability
}

type Item = Record<string, unknown>

function begin(ctx: WriteContext, stores: string[]): { tx: IDBTransaction; committed: Promise<void> } {
  const tx = ctx.db.transaction(stores, 'readwrite', { durability: ctx.durability })
  const committed = done(tx)
  // A rejection we report through the caller's own error must not surface as unhandled.
  committed.catch(() => {})
  return { tx, committed }
}

/**
 * Stores every value in one transaction: all or nothing. `method` is `put` or `add`; `keys`
 * gives out-of-line keys. Resolves to the keys after commit.
 */
export async function writeAll(
  ctx: WriteContext,
  storeName: string,
  values: readonly unknown[],
  method: 'put' | 'add',
  keys?: readonly (IDBValidKey | undefined)[],
): Promise<IDBValidKey[]> {
  const now = ctx.clock()
  const stamped = values.map((value) => stamp(value, ctx.mode, now))
  const { tx, committed } = begin(ctx, [storeName])
  const store = tx.objectStore(storeName)
  let requests: IDBRequest<IDBValidKey>[]
  try {
    requests = stamped.map((value, i) => store[method](value, keys?.[i]))
  } catch (error) {
    abortQuietly(tx)
    throw error
  }
  await committed
  return requests.map((r) => r.result)
}

/**
 * Rewrites the live item at `key` with `changes` merged in (or what `changes` returns), stamping
 * a new `_ts`. Resolves to the item as reads now return it.
 * @throws TtlError `NOT_FOUND` when no live item holds `key`; `INVALID_VALUE` when the change
 * would move the item to another key
 */
export async function update(
  ctx: WriteContext,
  storeName: string,
  key: IDBValidKey,
  changes: Item | ((item: Item) => Item),
): Promise<Item> {
  const { tx, committed } = begin(ctx, [storeName, META_STORE])
  const store = tx.objectStore(storeName)
  const state = req<StoreState>(tx.objectStore(META_STORE).get(storeName))
  const existing = await req(store.get(key))
  try {
    const now = ctx.clock()
    if (existing === undefined || isDeadMark(markOfStored(existing), cutoffs(await state, now))) {
      throw new TtlError('NOT_FOUND', `no live item with key ${String(key)} in "${storeName}"`)
    }
    const current = unstamp(existing) as Item
    const next = stamp(typeof changes === 'function' ? changes(current) : { ...current, ...changes }, ctx.mode, now)
    if (store.keyPath !== null) {
      if (indexedDB.cmp(keyPathValue(next, store.keyPath) as IDBValidKey, key) !== 0) {
        throw new TtlError('INVALID_VALUE', 'an update cannot change the key of an item')
      }
      store.put(next)
    } else store.put(next, key)
    await committed
    return unstamp(next)
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
