/**
 * The steps of quota relief (SPEC §9, `quota.ts`): the expired purged, then rounds of eviction
 * from the stores with `evictOnQuota` (`evict-round.ts`), the generations no row refers to dropped after each, the
 * write tried again after each. Loaded by the page entries with `import()` at the first write
 * refused for lack of space (issue #44), with the round of eviction by the full entries
 * (`relief.ts`); `idb-ttl/service-worker` imports it. With them, the undoing of what Firefox keeps
 * of a refused write (`undo-leaked.ts`), which that write waits for before its relief begins.
 */
import { isQuotaError } from '../platform/storage.js'

export { undoLeaked } from './undo-leaked.js'

/** What can make room. Each may fail (the disk is full): a failure counts as no room made. */
export interface QuotaRelief {
  /** The database's name: a realm makes room in it for one write at a time. */
  database: string
  /** Purges every expired item of the database; resolves to how many went. */
  purgeExpired(): Promise<number>
  /** One round of eviction from the opted-in stores; resolves to how many items went. */
  evictShare(): Promise<number>
  /**
   * Deletes the generations no row refers to any more (`generations/values.ts`); resolves to how many
   * went, `undefined` when no store keeps its values in generations.
   */
  dropGenerations(): Promise<number | undefined>
  /** The origin's storage usage in bytes, where the browser reports it. */
  usage(): Promise<number | undefined>
}

/** Rounds of eviction before a write is given up. */
const EVICTION_ROUNDS = 8

/**
 * After generations were deleted, the write is tried again after waits that double from
 * {@link ROOM_WAIT_MS}: for up to {@link ROUND_WAIT_MS} before the next round of eviction, and
 * once eviction is over, for what is left of {@link ROOM_WAIT_BUDGET_MS}. Chromium 156 gives a
 * deleted database's room back after anything from no time to more than a second (measured at
 * a 10 MB quota: a write that made room took 55 ms at the median, 1.7 s at worst); evicting more
 * meanwhile would be for nothing.
 */
const ROOM_WAIT_MS = 25
const ROUND_WAIT_MS = 400
/** The most a write waits for the room of deleted generations to come back, in all. */
const ROOM_WAIT_BUDGET_MS = 2_000

/**
 * A step of relief, run again if it fails: Firefox, after a write refused at its quota, refuses
 * the next write transaction of another database too (even one that only deletes), and the next
 * request of the refused one's connection; the one after goes through.
 */
const twice = <T>(step: () => Promise<T>): Promise<T> => step().catch(() => step())

/** Per database, the quota relief under way in this realm (settled once it ends, however). */
const relieving = new Map<string, Promise<void>>()

/**
 * What `withQuotaRelief` (`quota.ts`) runs once `attempt` failed with `error` for lack of space:
 * {@link relieve}, one write at a time per database. Side by side, a write whose rounds find every
 * item already given up and every generation already deleted by another's would give up at once,
 * without waiting for the room those deletions give back. A write refused while another makes
 * room tries again once that one is over, and makes room itself only if it still does not fit.
 */
export async function relieveInTurn<T>(attempt: () => Promise<T>, relief: QuotaRelief, error: unknown): Promise<T> {
  for (let other = relieving.get(relief.database); other; other = relieving.get(relief.database)) {
    await other
    try {
      return await attempt()
    } catch (retryError) {
      if (!isQuotaError(retryError)) throw retryError
    }
  }
  const mine = relieve(attempt, relief, error)
  const over = mine.then(
    () => {},
    () => {},
  )
  relieving.set(relief.database, over)
  void over.then(() => relieving.get(relief.database) === over && relieving.delete(relief.database))
  return mine
}

/** The steps of quota relief after `attempt` failed with `error` for lack of space. */
async function relieve<T>(attempt: () => Promise<T>, relief: QuotaRelief, error: unknown): Promise<T> {
  let budget = ROOM_WAIT_BUDGET_MS
  /** Tries the write again, and while it does not fit, waits and tries again for up to `patience` ms. */
  const retry = async (patience: number): Promise<{ value: T } | undefined> => {
    for (let wait = 0, waited = 0; ; waited += wait) {
      try {
        return { value: await attempt() }
      } catch (retryError) {
        if (!isQuotaError(retryError)) throw retryError
      }
      wait = Math.max(ROOM_WAIT_MS, 2 * wait)
      if (waited + wait > patience || wait > budget) return undefined
      budget -= wait
      await new Promise((resolve) => setTimeout(resolve, wait))
    }
  }
  let droppedAny = false
  const dropGenerations = async () => {
    const dropped = await twice(() => relief.dropGenerations()).catch(() => 0)
    droppedAny ||= (dropped ?? 0) > 0
    return dropped
  }
  const purged = await twice(() => relief.purgeExpired()).catch(() => 0)
  const dropped = (await dropGenerations()) ?? 0
  const afterPurge = purged + dropped > 0 ? await retry(dropped > 0 ? ROUND_WAIT_MS : 0) : undefined
  if (afterPurge) return afterPurge.value
  let usage = await relief.usage()
  for (let round = 0; round < EVICTION_ROUNDS; round++) {
    if ((await twice(() => relief.evictShare()).catch(() => 0)) === 0) break // nothing left to give up
    const droppedNow = await dropGenerations()
    const afterEviction = await retry((droppedNow ?? 0) > 0 ? ROUND_WAIT_MS : 0)
    if (afterEviction) return afterEviction.value
    const usageNow = await relief.usage()
    // Deleting records may give no room back (Chromium): stop before emptying the stores for
    // nothing. Not where values are kept in generations: room comes back as each is emptied.
    if (droppedNow === undefined && usage !== undefined && usageNow !== undefined && usageNow >= usage) break
    usage = usageNow
  }
  const atLast = droppedAny ? await retry(budget) : undefined
  if (atLast) return atLast.value
  throw error
}
