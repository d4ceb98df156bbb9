/**
 * Before a purge, the touches every tab owes (`owed-touches.ts`): apart, so that only the purge
 * (which the page entries load at idle, and the purge worker) carries it.
 */
import { joinBus, type Member } from '../platform/bus.js'
import { lockNames, webLocks } from '../platform/lock.js'
import { owingPrefix, settleTouches } from './owed-touches.js'

/** How long a purge waits for other tabs to write the touches they owe (a frozen tab never will). */
export const SETTLE_WAIT_MS = 1_000

/** The member a purger asks other tabs from, one per database and realm. */
const asking = new Map<string, Member>()

/**
 * Has every handle of database `dbName`, in every tab, write the touches it owes, waiting at most
 * {@link SETTLE_WAIT_MS} for them.
 */
export async function settleAllTabs(dbName: string): Promise<void> {
  await settleTouches(dbName)
  const locks = webLocks()
  // A lock asked for a moment ago may not be granted yet: pending requests owe touches too.
  const owing = await lockNames(owingPrefix(dbName))
  if (!locks || owing.length === 0) return
  let ask = asking.get(dbName)
  if (!ask) asking.set(dbName, (ask = joinBus(dbName)))
  ask.post('settle', null)
  const signal = AbortSignal.timeout(SETTLE_WAIT_MS)
  // Granted once the holder let go, after its touches committed; released again at once.
  await Promise.all(owing.map((name) => locks.request(owingPrefix(dbName) + name, { signal }, async () => {}).catch(() => {})))
}
