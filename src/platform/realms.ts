/** Each realm's (tab's, worker's) id, held as a Web Lock while it lives (`lock.ts`): loaded with the purge, whose journal names its writer. */
import { holdLock, lockNames, uniqueId, webLocks } from './lock.js'

const REALM_PREFIX = 'idb-ttl:realm:'
let realm: string | undefined
/** The lock manager the realm's lock was asked of (tests put stand-ins in and take them out). */
let realmLocks: LockManager | undefined

/**
 * This realm's id among the origin's tabs and workers: it holds the lock `idb-ttl:realm:<id>`
 * for as long as it lives, so that others see when it has ended ({@link livingRealms}).
 * `undefined` where there are no Web Locks.
 */
export function realmId(): string | undefined {
  const locks = webLocks()
  if (!locks) return undefined
  realm ??= uniqueId()
  if (realmLocks !== locks) {
    realmLocks = locks
    holdLock(REALM_PREFIX + realm)
  }
  return realm
}

/** The ids of the realms that have not ended (see {@link realmId}). */
export async function livingRealms(): Promise<Set<string>> {
  return new Set(await lockNames(REALM_PREFIX))
}
