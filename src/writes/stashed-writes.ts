/**
 * Writes to a store that keeps its values in generations (`generations/values.ts`): the values go to the
 * current generation first, then the rows that refer to them, in a transaction that also admits
 * the generation (`generations/stash.ts`). A generation deleted in between makes the write start
 * over with the new current one, a bounded number of times.
 */
import { putClaiming } from './claim.js'
import { META_STORE } from '../layout/expiry-index.js'
import { admit, rowsOf, stash } from '../generations/stash.js'
import { resolveRows } from '../generations/values.js'
import { refOf } from '../layout/generation-index.js'
import { cutoffs, type StoreState } from '../rules/policy.js'
import type { DeletedItem } from '../events/listeners.js'
import { abortQuietly, req } from '../platform/request.js'
import { bornDead, stampAt, unstamp, writeOrder } from '../layout/stamp.js'
import { knownWatermarks, learn, type Watermarks } from '../layout/held-settings.js'
import { begin, committedOrUndone, itemAt, refusedAt, type Changes, type Generations, type Item, type WriteContext, type Written } from './write-steps.js'
import { updated } from './update.js'

/** Times a write starts over when its generation was deleted under it. */
const ATTEMPTS = 5

function lostRace(storeName: string): DOMException {
  return new DOMException(`store "${storeName}": the write kept losing its generation to deletions; try again`, 'AbortError')
}

/**
 * {@link writeAll} for such a store. Rows are written one after the other, claiming room from
 * dead holders (see `claim.ts`), all in one transaction, which reads the settings. Values are
 * stamped before they are stashed, above the watermarks this realm knows: one the settings show
 * born dead (another tab raised them, its announcement still on its way) is stamped again by them
 * and the write starts over (the stashed values stay behind, unreferenced, as after a write cut short).
 */
export const writeStashed: Generations['writeAll'] = async (ctx, storeName, checked, method, keys, now, where) => {
  const orders = checked.map(() => writeOrder(now))
  const stampAbove = (watermarks: Watermarks) => checked.map((value, i) => stampAt(value, now, watermarks, orders[i]))
  let stored = stampAbove(knownWatermarks(ctx.db.name, storeName))
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const stashed = await stash(ctx.db, storeName, stored, ctx.durability, (error, i) => refusedAt(error, where(i), null))
    const { tx, committed } = begin(ctx, [storeName, META_STORE])
    const store = tx.objectStore(storeName)
    const meta = tx.objectStore(META_STORE)
    const settings = req<StoreState>(meta.get(storeName))
    const rows = rowsOf(store, stored, stashed)
    const claimed: DeletedItem[] = []
    const written: IDBValidKey[] = []
    try {
      if (!(await admit(meta, ctx.db.name, storeName, stashed))) {
        abortQuietly(tx)
        continue
      }
      const state = await settings
      learn(ctx.db.name, storeName, state)
      if (checked.some((value, i) => bornDead(value, stored[i], state))) {
        abortQuietly(tx)
        stored = stampAbove(state)
        continue
      }
      const cut = cutoffs(state, now)
      for (const [i, row] of rows.entries()) {
        written.push(await putClaiming(store, method, row, keys?.[i], cut, (items) => claimed.push(...items), where(i)))
      }
    } catch (error) {
      throw whyAborted(tx, error)
    }
    await committedOrUndone(ctx, storeName, committed, rows)
    return { result: written, claimed }
  }
  throw lostRace(storeName)
}

/**
 * Aborts `tx` after one of its requests failed with `error`, and says why it failed: a request
 * fails with `AbortError` when the engine aborted its transaction, whose own error is the reason
 * (`QuotaExceededError`, which quota relief must see).
 */
function whyAborted(tx: IDBTransaction, error: unknown): unknown {
  abortQuietly(tx)
  return (error as DOMException | null)?.name === 'AbortError' && tx.error ? tx.error : error
}

/**
 * Whether two stored rows are the same write of an item (or both absent): the same value, even
 * if a touch rewrote the row in between.
 */
function sameWrite(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b
  const [refA, refB] = [refOf(a), refOf(b)]
  return refA || refB ? refA?.w === refB?.w : (a as Item)._ts === (b as Item)._ts
}

/**
 * {@link update} for such a store: the item is read and its next value stashed outside the
 * rows' transaction, which then writes the row only if the item was not written meanwhile. A
 * generation deleted meanwhile makes it stash the same value again; another write of the item
 * makes it start over from the item as that write left it, calling a `changes` function again.
 */
export async function updateStashed(ctx: WriteContext, storeName: string, key: IDBValidKey, changes: Changes): Promise<Written<Item>> {
  reading: for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    const now = ctx.clock()
    const read = ctx.db.transaction([storeName, META_STORE])
    const settings = req<StoreState>(read.objectStore(META_STORE).get(storeName))
    const { keyPath } = read.objectStore(storeName)
    const row = await req(read.objectStore(storeName).get(key))
    const state = await settings
    learn(ctx.db.name, storeName, state)
    const [existing] = await resolveRows(ctx.db.name, storeName, [row])
    const next = updated(ctx, storeName, key, keyPath, existing, state, now, changes)
    for (let stashing = 0; stashing < ATTEMPTS; stashing++) {
      const stashed = await stash(ctx.db, storeName, [next], ctx.durability, (error) => refusedAt(error, itemAt(storeName, key), null))
      const { tx, committed } = begin(ctx, [storeName, META_STORE])
      const store = tx.objectStore(storeName)
      const meta = tx.objectStore(META_STORE)
      const current = req<StoreState>(meta.get(storeName))
      const claimed: DeletedItem[] = []
      const [nextRow] = rowsOf(store, [next], stashed)
      try {
        if (!sameWrite(await req(store.get(key)), row)) {
          abortQuietly(tx)
          continue reading
        }
        if (!(await admit(meta, ctx.db.name, storeName, stashed))) {
          abortQuietly(tx)
          continue
        }
        const cut = cutoffs(await current, now)
        await putClaiming(store, 'put', nextRow, store.keyPath === null ? key : undefined, cut, (items) => claimed.push(...items), itemAt(storeName, key))
      } catch (error) {
        throw whyAborted(tx, error)
      }
      await committedOrUndone(ctx, storeName, committed, [nextRow])
      return { result: unstamp(next), claimed }
    }
  }
  throw lostRace(storeName)
}
