/**
 * Physical deletion of dead items in bounded batches over the expiry index. Runs the same on the
 * page and in the purge worker: no page-only APIs.
 *
 * Each batch is one read-write transaction over the data store alone: it takes up to `batchSize`
 * primary keys from the dead ranges of the expiry index, and deletes them. It judges by the
 * clock and the settings as they are when it runs, not when its pass started: the app may have
 * moved the clock and written since (a stale `now` counts items dead by then as live, and would
 * evict them, or a live item, from a capped store that holds no more than its cap: SPEC §9), and
 * a change of default made by a tab whose clock is behind may give items more time (cut-offs do
 * not only grow). The settings come from a read-only transaction just before the batch's own, and
 * the clock is read after it, in the task that opens the batch's transaction: a write the batch
 * sees was made at or before that `now`. (A purge worker's clock is the page's, which answers a
 * moment later: there a write made in that moment may still be judged by the `now` before it.) Holding only the data store, a batch never makes
 * reads of other stores (which read the settings too) wait; only a store with `maxEntries` holds
 * its settings too, and evicts by what they say then, because a capacity may grow meanwhile. Keys are
 * collected before any delete (deleting under an open cursor broke in Safari), and the next
 * batch resumes, in each of the two dead ranges, at the last mark taken there (a whole second:
 * only that second's deleted entries are scanned again) rather than at the start of the range,
 * which would rescan every tombstone the pass left behind. Items written in bulk share their
 * second by the thousand, so while the app is idle a full batch goes on to the end of its last
 * second (at most `IDLE_GROWTH` × `batchSize` keys in all) and the next starts above it: in
 * Chromium, which keeps a deleted record's index entries until the database closes, every batch
 * that resumed inside a second walked again the entries its predecessors deleted there.
 *
 * A batch with budget left after the dead items then trims a store with `maxEntries` back to
 * its cap, evicting live items in the store's order (see `eviction.ts`).
 */
import { evict, evictStale, liveCount } from './eviction.js'
import { deletedItem, type DeletedItem, type ExpireReason } from '../events/listeners.js'
import { deadRanges, EXPIRY_INDEX, JOURNAL_STORE, META_STORE, type Resume } from '../layout/expiry-index.js'
import { nextDeath } from '../layout/next-death.js'
import { markAbove } from '../layout/purge-ranges.js'
import { cutoffs, type ExpiryMark, type StoreState } from '../rules/policy.js'
import { graceEnd, purgeCutoffs } from '../rules/grace.js'
import { DEFAULT_BATCH_SIZE, IDLE_GROWTH, idleGrowth } from '../rules/purge-options.js'
import { done, req } from '../platform/request.js'
import { markOfStored } from '../layout/stamp.js'
import { canJournal, journal } from './journal.js'
import { isQuotaError } from '../platform/storage.js'

/**
 * Who hears of deletions: `wants(store)` says whether values must be read (someone listens),
 * asked before each batch, so that a listener added while a purge runs hears the batches after
 * it; `deleted` gets them once the batch that deleted them has committed.
 */
export interface Witness {
  wants(store: string): boolean | Promise<boolean>
  /** `journal`: the event's entry in the purge's journal (`journal.ts`), when it has one. */
  deleted(store: string, items: DeletedItem[], reason: ExpireReason, journal?: string): void
}

export interface BatchResult {
  /** Items deleted, evicted ones included. */
  deleted: number
  /** The dead items deleted, when values were asked for. */
  items: DeletedItem[]
  /** The live items evicted to bring the store back to `maxEntries` (values when asked for). */
  evicted: DeletedItem[]
  /** Where the next batch starts (`{}`: from the start); `undefined` when the pass is done. */
  resume: Resume | undefined
  /** The store's settings as this batch read them. */
  state: StoreState
  /** The instant the batch judged by (epoch ms). */
  nowMs: number
  /** The journal entries of `items` and `evicted`, when they were journaled (`journal.ts`). */
  journaled: { expired?: string; evicted?: string }
}

/**
 * How one batch goes: `batchSize` dead items at most; `from` where the pass stands; with
 * `skipDisabled`, a store whose TTL is off is left alone (the background purge does not run for
 * it, except to keep its cap); with `withValues`, the deleted items' values are read too (a
 * key-only purge otherwise). A store over its `maxEntries` gives up at most `evictLimit` live
 * items in the batch, however few dead ones the courtesy allowed: the surplus is what the app's
 * own writes just added, and a cap kept late is a cap broken.
 */
export interface BatchOptions {
  batchSize?: number
  from?: Resume
  skipDisabled?: boolean
  withValues?: boolean
  evictLimit?: number
  /** Delete stale items too, whatever their store's grace (`keepExpired`) says: quota relief's purge. */
  stale?: boolean
  /** Keep the events of the batch in the purge's journal, where it can (with `withValues`). */
  journaled?: boolean
  /**
   * Keys a batch that took its whole `batchSize` may take beyond it to finish the second its
   * last key is in (default none): see {@link Courtesy.finish}.
   */
  finish?: number
}

/**
 * The keys after `keys` that share the expiry mark of the last of them, at most `limit` (their
 * values too, `withValues`); `whole`: that was all of them. Keys are in index order: those of
 * `mark` in `keys` come first in the run, which is read from its start.
 */
async function restOfSecond(
  index: IDBIndex,
  keys: IDBValidKey[],
  mark: ExpiryMark | undefined,
  limit: number,
  withValues: boolean,
): Promise<{ keys: IDBValidKey[]; values?: unknown[]; whole: boolean } | undefined> {
  if (mark === undefined) return undefined
  const run = IDBKeyRange.only(mark)
  // getAll's count is an unsigned long.
  const count = Math.min(keys.length + limit, 2 ** 32 - 1)
  const values = withValues ? req(index.getAll(run, count)) : undefined
  const runKeys = await req(index.getAllKeys(run, count))
  const from = runKeys.findIndex((key) => indexedDB.cmp(key, keys[keys.length - 1]) === 0) + 1
  const end = Math.min(from + limit, runKeys.length)
  return from === 0 ? undefined : { keys: runKeys.slice(from, end), values: (await values)?.slice(from, end), whole: end === runKeys.length && end < count }
}

/**
 * Deletes dead items of one store, then evicts its surplus, in one transaction (see {@link BatchOptions}).
 * A journaled batch refused for lack of space is run again unjournaled: the journal must never
 * stand in the way of a purge that makes room.
 */
export async function purgeBatch(connect: Connect, storeName: string, clock: PurgeClock, options: BatchOptions = {}): Promise<BatchResult> {
  try {
    return await batch(connect, storeName, clock, options)
  } catch (error) {
    if (!options.journaled || !isQuotaError(error)) throw error
    return batch(connect, storeName, clock, { ...options, journaled: false })
  }
}

/**
 * What a purge judges by: a clock (epoch ms, read when each batch runs; a purge worker's answers
 * through the page, so a promise), or one instant for every batch (a caller that judges at one).
 */
export type PurgeClock = number | (() => number | Promise<number>)

async function batch(connect: Connect, storeName: string, clock: PurgeClock, options: BatchOptions): Promise<BatchResult> {
  const { batchSize = DEFAULT_BATCH_SIZE, from = {}, skipDisabled = false, withValues = false, evictLimit = batchSize, finish = 0 } = options
  const state = await req<StoreState>((await connect()).transaction(META_STORE).objectStore(META_STORE).get(storeName))
  // Relaxed: a purge lost to a crash before it reached the disk only deletes the same dead
  // items again later, so waiting for the flush would buy nothing. The connection is asked for
  // again: an upgrade elsewhere may have closed it since the settings were read.
  // Capacities, unlike cut-offs, may shrink or grow (a new app version): a capped store's batch
  // holds its settings too, and evicts by what they say inside its own transaction.
  // (No settings: the store is missing, which the transaction below reports as NotFoundError.)
  const capped = Boolean(state?.capacity?.maxEntries)
  let db = await connect()
  // Read in the task that opens the batch's transaction where the clock answers at once: a write
  // that has not seen this reading cannot land before the batch's transaction (see the top).
  const read = typeof clock === 'number' ? clock : clock()
  const nowMs = typeof read === 'number' ? read : await read
  // Asked for again: an upgrade elsewhere may have closed the connection while the clock answered.
  if (typeof read !== 'number') db = await connect()
  const journaling = withValues && options.journaled === true && canJournal(db)
  const scope = [storeName, ...(capped ? [META_STORE] : []), ...(journaling ? [JOURNAL_STORE] : [])]
  const tx = db.transaction(scope, 'readwrite', { durability: 'relaxed' })
  const committed = done(tx)
  committed.catch(() => {})
  const store = tx.objectStore(storeName)
  const index = store.index(EXPIRY_INDEX)
  let budget = batchSize
  let grown = 0
  const resume: Resume = { ...from }
  const items: DeletedItem[] = []
  if (!(skipDisabled && state.defaultTtl === null)) {
    const ranges = deadRanges(purgeCutoffs(state, nowMs, options.stale), from)
    for (const kind of ['inherit', 'own'] as const) {
      const range = ranges[kind]
      if (!range || budget === 0) continue
      // Same range, same count, same transaction: the values line up with the keys.
      const values = withValues ? req(index.getAll(range, budget)) : undefined
      const keys = await req(index.getAllKeys(range, budget))
      if (keys.length === 0) continue
      budget -= keys.length
      // Requests run in order: the last item is read before the deletes, without waiting for it.
      const last = req(store.get(keys[keys.length - 1])).then(markOfStored)
      // A full batch may go on to the end of its last key's second (read before any delete):
      // the next batch then starts past that second rather than walking what this one deleted.
      const rest = budget === 0 && finish > 0 ? await restOfSecond(index, keys, await last, finish, withValues) : undefined
      for (const key of [...keys, ...(rest?.keys ?? [])]) store.delete(key)
      const mark = await last
      if (mark !== undefined) resume[kind] = rest?.whole ? markAbove(mark) : mark
      grown += rest?.keys.length ?? 0
      if (values) (await values).forEach((value, i) => items.push(deletedItem(store, keys[i], value)))
      rest?.values?.forEach((value, i) => items.push(deletedItem(store, rest.keys[i], value)))
    }
  }
  let evicted: DeletedItem[] = []
  // Only once the dead ranges are exhausted (budget left): what is dead goes before what is live.
  const allowance = budget > 0 ? Math.max(budget, evictLimit - (batchSize - budget)) : 0
  if (capped && allowance > 0) {
    const settings = await req<StoreState>(tx.objectStore(META_STORE).get(storeName))
    const maxEntries = settings.capacity?.maxEntries
    const cut = cutoffs(settings, nowMs)
    let room = allowance
    // Stale items count against the cap and go first: a live item goes only when the live alone overfill it (SPEC §15).
    if (maxEntries && settings.keepExpired) {
      const kept = purgeCutoffs(settings, nowMs, options.stale)
      const over = (await liveCount(store, kept)) - maxEntries
      if (over > 0) evicted = await evictStale(store, kept, cut, Math.min(over, room), withValues)
      room -= evicted.length
    }
    const surplus = maxEntries ? (await liveCount(store, cut)) - maxEntries : 0
    if (surplus > 0 && room > 0) evicted.push(...(await evict(store, settings, cut, Math.min(surplus, room), withValues)))
  }
  const journaled = {
    ...(journaling && items.length > 0 ? { expired: journal(tx, storeName, 'expired', items) } : {}),
    ...(journaling && evicted.length > 0 ? { evicted: journal(tx, storeName, 'evicted', evicted) } : {}),
  }
  await committed
  const full = budget === 0 || (allowance > 0 && evicted.length === allowance)
  // A pass that resumed ends with one sweep from the start: a connection whose clock is behind
  // may have written marks below where it resumed, dead already by this batch's clock.
  const resumed = from.inherit !== undefined || from.own !== undefined
  const deleted = batchSize - budget + grown + evicted.length
  return { deleted, items, evicted, resume: full ? resume : resumed ? {} : undefined, state, nowMs, journaled }
}

/**
 * One batch that reads values where the witness wants them, then tells it what the committed
 * batch deleted: expired items, then evicted ones (only when their values were read).
 */
async function witnessedBatch(connect: Connect, store: string, clock: PurgeClock, options: BatchOptions, witness: Witness | undefined): Promise<BatchResult> {
  const withValues = (await witness?.wants(store)) ?? false
  const batch = await purgeBatch(connect, store, clock, { ...options, withValues, journaled: true })
  if (batch.items.length > 0) witness?.deleted(store, batch.items, 'expired', batch.journaled.expired)
  if (batch.evicted.length > 0 && withValues) witness?.deleted(store, batch.evicted, 'evicted', batch.journaled.evicted)
  return batch
}

/** Lets the app's own requests go first: batch sizes and a pause between batches. */
export interface Courtesy {
  batchSize(configured: number): number
  pause(): Promise<void>
  /**
   * How many keys a batch that took all `configured` may add to finish the second (expiry mark)
   * its last key is in; absent: none. Items written in bulk share their second by the thousand,
   * and a batch that stops inside one leaves the next to walk the index entries of the items it
   * deleted there, which Chromium keeps until the database closes (docs/benchmarks.md).
   */
  finish?(configured: number): number
}

/** Full batches, no pauses: for purges the app itself is waiting on. */
export const NO_COURTESY: Courtesy = { batchSize: (n) => n, pause: async () => {}, finish: idleGrowth }

/**
 * The open connection, asked for again before each batch: an upgrade in another tab closes the
 * connection between two batches, and the next one must go through the reopened connection.
 */
export type Connect = () => Promise<IDBDatabase>

/**
 * Deletes every item of the store that is dead by `clock` (each batch at its own reading), past
 * its store's grace unless `stale`; returns how many.
 */
export async function purgeStore(
  connect: Connect,
  storeName: string,
  clock: PurgeClock,
  batchSize: number = DEFAULT_BATCH_SIZE,
  courtesy: Courtesy = NO_COURTESY,
  witness?: Witness,
  stale = false,
): Promise<number> {
  let total = 0
  let from: Resume | undefined
  do {
    if (from !== undefined) await courtesy.pause()
    const options = { batchSize: courtesy.batchSize(batchSize), finish: courtesy.finish?.(batchSize), evictLimit: batchSize, from, stale }
    const batch = await witnessedBatch(connect, storeName, clock, options, witness)
    total += batch.deleted
    from = batch.resume
  } while (from)
  return total
}

/** What one background slice did to one store. */
export interface SliceReport {
  store: string
  deleted: number
  durationMs: number
  /** Of `deleted`, live items evicted to bring the store back to `maxEntries`. */
  evicted: number
  /** The store has a `maxEntries`: writes to it should wake the purger to trim it. */
  capped: boolean
  /** Dead items remain: the next slice should come soon. */
  more: boolean
  /** When the next item dies under the current settings (epoch ms); `Infinity`: none will. */
  nextExpiryMs: number
  defaultTtl: StoreState['defaultTtl']
}

export interface SliceOptions {
  batchSize: number
  /** Time budget per store and slice, in real milliseconds. */
  sliceMs: number
  courtesy?: Courtesy
  witness?: Witness
}

/**
 * One bounded slice of background purging over `stores`: batches until each store's dead ranges
 * are exhausted or the budget is spent. `resume` carries each store's position between slices.
 */
export async function purgeSlice(
  connect: Connect,
  stores: readonly string[],
  clock: PurgeClock,
  options: SliceOptions,
  resume: Map<string, Resume>,
): Promise<SliceReport[]> {
  const reports: SliceReport[] = []
  for (const store of stores) {
    const started = performance.now()
    let deleted = 0
    let evicted = 0
    let batch: BatchResult | undefined
    do {
      const courtesy = options.courtesy ?? NO_COURTESY
      if (deleted > 0) await courtesy.pause()
      const batchOptions = {
        batchSize: courtesy.batchSize(options.batchSize),
        finish: courtesy.finish?.(options.batchSize),
        // A trim reads the values of the last second it evicts from (`eviction.ts`), which a stream
        // of writes fills by the thousand: one batch takes the surplus of a trim's interval whole.
        evictLimit: options.batchSize * IDLE_GROWTH,
        from: resume.get(store),
        skipDisabled: true,
      }
      batch = await witnessedBatch(connect, store, clock, batchOptions, options.witness)
      deleted += batch.deleted
      evicted += batch.evicted.length
      if (batch.resume) resume.set(store, batch.resume)
      else resume.delete(store)
    } while (batch.resume && performance.now() - started < options.sliceMs)
    const more = batch.resume !== undefined
    reports.push({
      store,
      deleted,
      evicted,
      durationMs: performance.now() - started,
      more,
      nextExpiryMs: more ? batch.nowMs : await nextExpiry(await connect(), store, batch.nowMs),
      defaultTtl: batch.state.defaultTtl,
      capped: !!batch.state.capacity?.maxEntries,
    })
  }
  return reports
}

/**
 * When the purge next has an item of the store to delete (epoch ms): the next death, or in a store
 * with a grace the next end of one; `Infinity`: never.
 */
export async function nextExpiry(db: IDBDatabase, storeName: string, nowMs: number): Promise<number> {
  const tx = db.transaction([storeName, META_STORE], 'readonly')
  const state = await req<StoreState>(tx.objectStore(META_STORE).get(storeName))
  return graceEnd(state, nowMs, await nextDeath(tx.objectStore(storeName).index(EXPIRY_INDEX), state, purgeCutoffs(state, nowMs)))
}
