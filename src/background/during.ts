/**
 * `purgeDuring`: the background purge inside a service worker's event, kept alive for it. Apart
 * from `Background`: only the full handle calls it.
 */
import { describeError, kindOf, TtlError } from '../rules/errors.js'
import type { Purging } from './background.js'

/** What `purgeDuring` needs of a service worker's event (an `ExtendableEvent`). */
export interface WaitUntilEvent {
  waitUntil(promise: Promise<unknown>): void
}

/**
 * Purges what is due now inside a service worker's `event`, kept alive for it: the promise is
 * handed to `event.waitUntil` before the purge starts, and is returned (see `PurgeScheduler.during`).
 * Rejects, purging nothing, unless `event` has a `waitUntil` that takes it: an event whose
 * dispatch is over, with no promise of its own pending, refuses (`InvalidStateError`), and a
 * purge then would run with nothing keeping the worker alive.
 * @throws TtlError `INVALID_OPTION` (as a rejection) for such an event, or for a budget that is not a positive number of ms
 */
export function purgeDuring(background: Purging, event: WaitUntilEvent, budgetMs: number): Promise<void> {
  if (typeof (event as Partial<WaitUntilEvent> | null | undefined)?.waitUntil !== 'function') {
    return Promise.reject(new TtlError('INVALID_OPTION', `purgeDuring needs the service worker event it runs in, one with waitUntil (an ExtendableEvent: activate, fetch, message, sync…); got ${kindOf(event)}`))
  }
  let start!: () => void
  const purged = new Promise<void>((resolve) => (start = resolve)).then(() => purgeFor(background, budgetMs))
  try {
    event.waitUntil(purged)
  } catch (error) {
    const { name, message } = describeError(error)
    return Promise.reject(new TtlError('INVALID_OPTION', `purgeDuring's event can no longer be kept alive (waitUntil threw ${name}: ${message}); nothing was purged. Hand the event over while it is dispatched, or inside a promise already given to its waitUntil`))
  }
  start()
  return purged
}

async function purgeFor(background: Purging, budgetMs: number): Promise<void> {
  if (!(typeof budgetMs === 'number' && budgetMs > 0)) {
    throw new TtlError('INVALID_OPTION', `purgeDuring's budgetMs must be a positive number of ms; got ${typeof budgetMs === 'number' ? budgetMs : kindOf(budgetMs)}`)
  }
  await background.purgeFor(budgetMs)
}
