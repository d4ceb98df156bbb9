/**
 * How this realm's live queries hear of the changes of a database (`notices.ts`), loaded with what
 * runs a subscribed query (`subscribers.ts`): the first hearer of a database in the realm joins its
 * bus, takes the lock that tells other realms to post their changes, and says so; the last one
 * gives all three up. The realm's registry, id and bus are handed in (`hub.ts` `liveRealm`).
 */
import { holdLock } from '../platform/lock.js'
import { lockPrefix, type Hearer, type Hearing, type Listening } from './notices.js'

/**
 * After its first live query starts, a realm runs its queries once more this long after: a
 * handle elsewhere that had not heard it yet may have committed a write without telling it.
 */
export const LATE_NEWS_MS = 250

/**
 * Calls `hear` with the stores of database `dbName` that change, in any realm, until the returned
 * function is called.
 */
export function hearChanges({ realm, listening, joinBus, tellRealm }: Hearing, dbName: string, hear: Hearer): () => void {
  let entry = listening.get(dbName)
  if (!entry) {
    const member = joinBus(dbName).on('changed', (message) => message.from !== realm && tellRealm(dbName, message.stores))
    const lock = holdLock(`${lockPrefix(dbName)}${realm}`)
    const made: Listening = { hearers: new Set(), member, lock, lateNews: undefined }
    // Without Web Locks every handle posts every change: no news can be missed.
    if (lock) {
      made.lateNews = setTimeout(() => {
        made.lateNews = undefined
        tellRealm(dbName, null)
      }, LATE_NEWS_MS)
    }
    listening.set(dbName, (entry = made))
    member.post('live', { from: realm, here: true })
  }
  entry.hearers.add(hear)
  const joined = entry
  return () => {
    if (!joined.hearers.delete(hear) || joined.hearers.size > 0) return
    listening.delete(dbName)
    clearTimeout(joined.lateNews)
    joined.lock?.release()
    joined.member.post('live', { from: realm, here: false })
    joined.member.leave()
  }
}
