/**
 * Work that follows a handle's changes without costing its writes: run once the changes have
 * rested a while, when the page is hidden or left (where a tab that is closed or frozen gets its
 * last chance), and at most once at a time. What `lost.ts` records and `bucket-expiry.ts` sets
 * run here.
 */

/** How long after the last change the work runs: a burst of writes costs one run. */
export const REST_MS = 2_000

/** A runner of `work` at rest: `changed()` after each change, `stop()` at close. */
export interface AtRest {
  changed(): void
  /** Runs the work now (once the one under way has ended). */
  run(): Promise<void>
  stop(): void
}

export function atRest(work: () => Promise<void>): AtRest {
  let timer: ReturnType<typeof setTimeout> | undefined
  let running: Promise<void> = Promise.resolve()
  // The work's own failures (a closed connection, a full disk) must not reach the app: the next rest tries again.
  const run = () => (running = running.then(work).catch(() => {}))
  const left = () => void run()
  // `pagehide` may come while the page still shows as visible: it runs whatever the state.
  const hidden = () => globalThis.document?.visibilityState === 'hidden' && left()
  globalThis.addEventListener?.('pagehide', left)
  globalThis.document?.addEventListener('visibilitychange', hidden)
  return {
    changed() {
      clearTimeout(timer)
      timer = setTimeout(() => void run(), REST_MS)
      ;(timer as { unref?: () => void }).unref?.()
    },
    run,
    stop() {
      clearTimeout(timer)
      globalThis.removeEventListener?.('pagehide', left)
      globalThis.document?.removeEventListener('visibilitychange', hidden)
    },
  }
}
