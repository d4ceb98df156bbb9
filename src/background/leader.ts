/**
 * One purger per database across tabs: a Web Lock elects the connection that purges, and when
 * its holder closes (or its tab goes away) the next waiting connection takes over. Where Web
 * Locks are missing every connection leads: purging is idempotent, so that is only extra work.
 *
 * A page that cannot purge gives the lock up: one about to be frozen (`freeze`, background tabs
 * on phones) or put in the back/forward cache (`pagehide`) steps down and queues again when it
 * comes back (`resume`, `pageshow`); one that turns hidden, where its timers and idle callbacks
 * are throttled, goes to the back of the queue, so that a visible tab waiting for the lock takes
 * over (with none waiting, it gets the lock straight back). So does a leader whose purge failed:
 * another tab, perhaps of a newer version of the app, gets to try.
 */
import { holdLock, webLocks, type HeldLock } from '../platform/lock.js'

export interface Leadership {
  /** Gives the lock up (or stops waiting for it), for good. */
  release(): void
  /** If leading, gives the lock to the next connection waiting for it and queues again. */
  toBack(): void
  /** Whether another connection holds the lock now (`false` where there are no Web Locks). */
  heldElsewhere(): Promise<boolean>
}

/** `onChange(true)` when this connection becomes the purger, `onChange(false)` when it steps down. */
export function electLeader(lockName: string, onChange: (leading: boolean) => void): Leadership {
  if (!webLocks()) {
    onChange(true)
    return { release() {}, toBack() {}, heldElsewhere: async () => false }
  }
  let turn: { lock?: HeldLock; leading: boolean } | undefined
  let stopped = false

  const join = () => {
    if (stopped || turn) return
    const mine: { lock?: HeldLock; leading: boolean } = { leading: false }
    turn = mine
    mine.lock = holdLock(lockName, () => {
      // Stepped down while the grant was on its way: pass the lock on at once.
      if (turn !== mine) return false
      mine.leading = true
      onChange(true)
    })
  }
  const leave = () => {
    const mine = turn
    if (!mine) return
    turn = undefined
    mine.lock?.release()
    if (mine.leading) onChange(false)
  }
  const toBack = () => {
    if (!turn?.leading) return
    leave()
    join()
  }
  const hidden = () => document.visibilityState === 'hidden' && toBack()

  const lifecycle: [EventTarget, string, () => void][] =
    typeof document === 'undefined'
      ? []
      : [
          [document, 'freeze', leave],
          [document, 'resume', join],
          [document, 'visibilitychange', hidden],
          [globalThis, 'pagehide', leave],
          [globalThis, 'pageshow', join],
        ]
  for (const [target, type, handler] of lifecycle) target.addEventListener(type, handler)
  join()
  return {
    release() {
      stopped = true
      for (const [target, type, handler] of lifecycle) target.removeEventListener(type, handler)
      leave()
    },
    toBack,
    async heldElsewhere() {
      if (turn?.leading) return false
      const { held = [] } = await webLocks()!.query()
      return held.some((lock) => lock.name === lockName)
    },
  }
}
