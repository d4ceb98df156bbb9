/**
 * A change of the settings every realm may hold in memory (`held-settings.ts`): loaded with what
 * changes a default (`writes/default-ttl.ts`, `layout/redeclare.ts`), never by the first load.
 */
import { joinBus } from '../platform/bus.js'
import { webLocks, withLock } from '../platform/lock.js'
import { forgetSettings, LEASE_MS, lockName } from './held-settings.js'

/** How often a waiting change asks again (a realm may have taken the lock after the first ask). */
const ASK_MS = 50

/**
 * Runs `change`, a write of the settings of database `name`, once no realm trusts a copy: every
 * realm is asked to let its copies go, and `change` runs holding the settings lock exclusively
 * (taken from a realm that did not let go within {@link LEASE_MS}). Without Web Locks it just runs.
 */
export async function changingSettings<T>(name: string, change: () => Promise<T>): Promise<T> {
  const locks = webLocks()
  if (!locks) return change()
  const member = joinBus(name)
  const ask = () => {
    forgetSettings(name)
    member.post('settings', {})
  }
  ask()
  const asking = setInterval(ask, ASK_MS)
  let started = false
  const run = () => {
    started = true
    clearInterval(asking)
    return change()
  }
  try {
    const patience = AbortSignal.timeout(LEASE_MS)
    try {
      return await withLock(locks, lockName(name), run, { signal: patience })
    } catch (error) {
      if (started || !patience.aborted) throw error
      return await withLock(locks, lockName(name), run, { steal: true })
    }
  } finally {
    clearInterval(asking)
    member.leave()
  }
}
