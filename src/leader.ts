/**
 * One purger per database across tabs: a Web Lock elects the connection that purges, and when
 * its holder closes (or its tab goes away) the next waiting connection takes over. Where Web
 * Locks are missing every connection leads: purging is idempotent, so that is only extra work.
 */

export interface Leadership {
  /** Gives the lock up (or stops waiting for it). */
  release(): void
}

export function electLeader(lockName: string, onLeader: () => void): Leadership {
  const locks = typeof navigator === 'undefined' ? undefined : navigator.locks
  if (!locks) {
    onLeader()
    return { release() {} }
  }
  const waiting = new AbortController()
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  locks
    .request(lockName, { signal: waiting.signal }, async () => {
      onLeader()
      await held
    })
    // AbortError: released while still waiting for the lock.
    .catch(() => {})
  return {
    release() {
      waiting.abort()
      release()
    },
  }
}
