/**
 * `purgeDuring`: the background purge inside a service worker's event, kept alive for it. Apart
 * from `Background`: only the full handle calls it. Its checks and refusals (`during-work.ts`)
 * load once the event holds the purge: the page entries load them with `import()` (issue #44).
 */
import type { Purging } from './background.js'

/** What `purgeDuring` loads: its checks and refusals. */
export type DuringWork = typeof import('./during-work.js')

/** What `purgeDuring` needs of a service worker's event (an `ExtendableEvent`). */
export interface WaitUntilEvent {
  waitUntil(promise: Promise<unknown>): void
}

/**
 * Purges what is due now inside a service worker's `event`, kept alive for it: the promise is
 * handed to `event.waitUntil` before the purge starts, and is returned (see `PurgeScheduler.during`).
 * Rejects, purging nothing, unless `event` has a `waitUntil` that takes it: an event whose
 * dispatch is over, with no promise of its own pending, refuses (`InvalidStateError`), and a
 * purge then would run with nothing keeping the worker alive. `work` loads the checks.
 * @throws TtlError `INVALID_OPTION` (as a rejection) for such an event, or for a budget that is not a positive number of ms
 */
export function purgeDuring(background: Purging, event: WaitUntilEvent, budgetMs: number, work: () => Promise<DuringWork>): Promise<void> {
  let start!: () => void
  const purged = new Promise<void>((resolve) => (start = resolve)).then(work).then((loaded) => loaded.purgeFor(background, budgetMs))
  try {
    // Synchronously, while the event is dispatched: no event (or one without waitUntil) throws here too.
    event.waitUntil(purged)
  } catch (error) {
    return work().then((loaded) => Promise.reject(loaded.refusal(event, error)))
  }
  start()
  return purged
}
