/**
 * Writes that stamp `_ts` and keep the expiry mark. Values are validated before any transaction
 * opens, and stamped then too unless by settings read in the write's transaction; every write
 * resolves only once its transaction has committed.
 */
import type { writeClaiming } from './claim.js'
import { usesGenerations } from '../layout/generation-index.js'
import type { resolveRows } from '../generations/values.js'
import type { dropGenerationsOf } from '../generations/stash.js'
import type { updateStashed, writeStashed } from './stashed-writes.js'
import { abortQuietly } from '../platform/request.js'
import { stampAt, check, writeOrder, type Checked } from '../layout/stamp.js'
import { heldSettings, keepsSettings, knownWatermarks } from '../layout/held-settings.js'
import { normalizeTtl, type DefaultTtl } from '../rules/ttl.js'
import { begin, committedOrUndone, refusedAt, settingsFor, unlessClosed, type Generations, type Item, type WriteContext, type Written } from './write-steps.js'
import { refuse } from '../rules/refusal.js'

export type { WriteContext, Written } from './write-steps.js'

/**
 * The writes of stores that keep their values in generations (`stashed-writes.ts`) and the drop of
 * the generations no row refers to (`generations/stash.ts`), as an entry gets them: the page
 * entries load them with `import()` when a handle first needs them, so that a page without such
 * stores loads none of it (issue #44); `idb-ttl/service-worker` imports them.
 */
export interface StashWork {
  writeStashed: typeof writeStashed
  updateStashed: typeof updateStashed
  dropGenerationsOf: typeof dropGenerationsOf
  /** The reading of the values (`generations/values.ts`), loaded with the writes at a handle's first read of such a store. */
  resolveRows: typeof resolveRows
}

/**
 * A full handle's reads and writes of stores that keep their values in generations, with what
 * `load` brings; the handle hands them the writes below as `WriteContext.generations`.
 * A handle without them, `idb-ttl/core`'s, refuses such stores, and its bundle carries none of this.
 */
export function generationsWith(load: () => Promise<StashWork>): Generations {
  return {
    resolve: async (...args) => (await load()).resolveRows(...args),
    writeAll: async (...args) => (await load()).writeStashed(...args),
    update: async (...args) => (await load()).updateStashed(...args),
  }
}

/**
 * Stores every value in one transaction: all or nothing. `method` is `put` or `add`; `keys`
 * gives out-of-line keys; `batch` numbers the items in error messages. Resolves to the keys
 * after commit.
 *
 * Values are stamped above the watermarks of the store's settings, so that none is born dead
 * (SPEC §6): those of the copy this realm holds (`layout/held-settings.ts`), with no read of the
 * settings; without a copy where the realm keeps them (Web Locks), those read in the write's own
 * transaction, and kept for the next writes. Without Web Locks, the watermarks this realm knows
 * (`layout/held-settings.ts`): a change of setting in another tab reaches them by its announcement.
 * A write refused with `ConstraintError` is tried again, in a transaction that reads the settings
 * to judge which holders are dead (`claim.ts`, as `claiming` loads it: at the first such refusal).
 */
export async function writeAll(
  ctx: WriteContext,
  storeName: string,
  values: readonly unknown[],
  method: 'put' | 'add',
  keys: readonly (IDBValidKey | undefined)[] | undefined,
  batch: boolean,
  claiming: LoadClaiming,
): Promise<Written<IDBValidKey[]>> {
  if (!Array.isArray(values)) {
    throw refuse('INVALID_VALUE', 'putAll', storeName, values)
  }
  const now = ctx.clock()
  const where = (i: number) => (batch ? `store "${storeName}", item ${i}` : `store "${storeName}"`)
  // Indexes, not map(): a hole in the array is a value too (undefined), and is refused.
  const checked = Array.from(values, (value, i) => check(value, ctx.mode, where(i), ctx.keepTs))
  const { generations } = ctx
  // A handle without generations (`idb-ttl/core`'s) never writes a store that keeps them: it refuses it.
  if (generations && usesGenerations(ctx.db, storeName)) return unlessClosed(ctx.db, () => generations.writeAll(ctx, storeName, checked, method, keys, now, where))
  const held = heldSettings(ctx.db.name, storeName)
  if (!held && keepsSettings(ctx.db.name)) return writeReading(ctx, storeName, checked, method, keys, now, where, claiming)
  const watermarks = held ?? knownWatermarks(ctx.db.name, storeName)
  const stored = checked.map((value) => stampAt(value, now, watermarks))
  return putStamped(ctx, begin(ctx, [storeName]), storeName, checked, stored, method, keys, now, where, claiming)
}

/** The retry of a write refused with `ConstraintError` (`claim.ts`), as an entry loads it: with the handle's less common calls. */
export type LoadClaiming = () => Promise<{ writeClaiming: typeof writeClaiming }>

/**
 * {@link writeAll} stamping by the settings it reads first, in a read-only transaction of their
 * own, and keeps. Not in the write's transaction: taking the settings store read-write, it would
 * make every read of another store (which reads the settings too) wait for it, and for whatever
 * it waits for, a `db.transaction` over its store among them (SPEC §11). A change committed
 * between the two is one this write came before, as a write judged by a held copy.
 */
const writeReading: (...args: [...Parameters<Generations['writeAll']>, claiming: LoadClaiming]) => Promise<Written<IDBValidKey[]>> = async (ctx, storeName, checked, method, keys, now, where, claiming) => {
  // Ordered as issued, as the writes stamped at once: a later one of this realm may land first.
  const orders = checked.map(() => writeOrder(now))
  const state = await settingsFor(ctx, storeName)
  const stored = checked.map((value, i) => stampAt(value, now, state, orders[i]))
  return putStamped(ctx, begin(ctx, [storeName]), storeName, checked, stored, method, keys, now, where, claiming)
}

/** Issues every write of `stored` in `transaction` at once; on `ConstraintError`, `claim.ts`'s `writeClaiming`. */
async function putStamped(
  ctx: WriteContext,
  { tx, committed }: { tx: IDBTransaction; committed: Promise<void> },
  storeName: string,
  checked: readonly Checked[],
  stored: readonly Item[],
  method: 'put' | 'add',
  keys: readonly (IDBValidKey | undefined)[] | undefined,
  now: number,
  where: (i: number) => string,
  claiming: LoadClaiming,
): Promise<Written<IDBValidKey[]>> {
  const store = tx.objectStore(storeName)
  const requests: IDBRequest<IDBValidKey>[] = []
  for (const [i, value] of stored.entries()) {
    try {
      requests.push(store[method](value, keys?.[i]))
    } catch (error) {
      abortQuietly(tx)
      throw refusedAt(error, where(i), store.keyPath)
    }
  }
  try {
    await committedOrUndone(ctx, storeName, committed, stored)
  } catch (error) {
    if ((error as DOMException | null)?.name !== 'ConstraintError') throw error
    return (await claiming()).writeClaiming(ctx, storeName, checked, method, keys, now, where)
  }
  return { result: requests.map((r) => r.result), claimed: [] }
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

/**
 * `value` as `setDefaultTtl` takes it, checked before its work loads (`default-ttl.ts`).
 * @throws TtlError `INVALID_TTL` (`refuse`d: the handle explains it)
 */
export function checkNewDefault(storeName: string, value: DefaultTtl): DefaultTtl {
  // An absent default (a store declared without one) means TTL off; an argument left out does not.
  if (value === undefined) throw refuse('INVALID_TTL', 'newDefault', storeName)
  const checked = normalizeTtl(value, false)
  if (checked === undefined) throw refuse('INVALID_TTL', 'defaultTtl', `store "${storeName}"`, value)
  return checked
}
