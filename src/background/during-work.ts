/**
 * The checks of `purgeDuring` (`during.ts`) and its refusals: the page entries load them with
 * `import()` at its first call (issue #44), `idb-ttl/service-worker` imports them.
 */
import { describeError, kindOf, TtlError } from '../rules/errors.js'
import type { Purging } from './background.js'

/** Why `event` did not take the purge (`waitUntil` threw `error`, or there is none to call). */
export function refusal(event: unknown, error: unknown): TtlError {
  if (typeof (event as { waitUntil?: unknown } | null | undefined)?.waitUntil !== 'function') {
    return new TtlError('INVALID_OPTION', `purgeDuring needs the service worker event it runs in, one with waitUntil (an ExtendableEvent: activate, fetch, message, sync…); got ${kindOf(event)}`)
  }
  const { name, message } = describeError(error)
  return new TtlError('INVALID_OPTION', `purgeDuring's event can no longer be kept alive (waitUntil threw ${name}: ${message}); nothing was purged. Hand the event over while it is dispatched, or inside a promise already given to its waitUntil`)
}

/** Purges for at most `budgetMs`, once the event holds the purge. */
export async function purgeFor(background: Purging, budgetMs: number): Promise<void> {
  if (!(typeof budgetMs === 'number' && budgetMs > 0)) {
    throw new TtlError('INVALID_OPTION', `purgeDuring's budgetMs must be a positive number of ms; got ${typeof budgetMs === 'number' ? budgetMs : kindOf(budgetMs)}`)
  }
  await background.purgeFor(budgetMs)
}
