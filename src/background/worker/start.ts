/**
 * The purge worker's start, apart from the rest of `background/`: the entries that purge in a
 * worker import it (`../page.ts`, loaded at idle by `open-page.ts` and `open-core.ts`), and `idb-ttl/service-worker` does not, so
 * that its bundle carries no worker file.
 */
import type { StartWorker } from '../background.js'
import type { PurgeApi, PurgeConfig } from './api.js'
import { WATCHDOG_MS, WorkerPurger } from './client.js'

export const startPurgeWorker: StartWorker = (config, inline) => new WorkerPurger(config, WATCHDOG_MS, (reason) => inlineInstead(config, reason, inline))

/**
 * The purger of `idb-ttl/core`, which purges in its worker alone: a worker that cannot start
 * (`reason`) is not retried; the console says so once, as the full entry's fallback does, and
 * every purge (background slices, `purgeExpired`) then fails with `reason`.
 */
export const startCorePurgeWorker = (config: PurgeConfig): WorkerPurger =>
  new WorkerPurger(config, WATCHDOG_MS, (reason) => {
    warnNoWorker(config, reason, 'is not purged (idb-ttl/core purges in its worker alone)', false)
    const refused = () => Promise.reject(reason)
    return { slice: refused, purgeAll: refused, close: async () => {} }
  })

/**
 * The page's own purger, for a worker that could not start (`reason`), and the one console warning
 * that says so. Here, not in the client: `idb-ttl/core`, which has no page purger to fall back
 * on, carries none of it.
 */
function inlineInstead(config: PurgeConfig, reason: Error, inline: () => PurgeApi): PurgeApi {
  warnNoWorker(config, reason, "is purged inline, on this thread (as with purge: { mode: 'inline' })", true)
  return inline()
}

/**
 * The one console warning for a purge worker that could not start (`reason`): what becomes of the
 * database's purge (`outcome`), and what to do, naming the URL. `inline`: the entry can purge
 * inline, which silences the warning.
 */
function warnNoWorker(config: PurgeConfig, reason: Error, outcome: string, inline: boolean): void {
  const cause = reason.message.replace(/\.+$/, '')
  const silence = inline ? "set purge: { mode: 'inline' }, which also silences this warning" : "use 'idb-ttl', which can purge inline"
  // A global with no Worker at all (a service worker; a shared worker outside Firefox): nothing to ship or allow.
  const advice =
    typeof Worker === 'undefined'
      ? `This global (${globalThis.constructor?.name ?? 'a worker'}) cannot start workers: ${silence}.`
      : `If your bundler does not ship the worker (esbuild, for one), copy node_modules/idb-ttl/dist/purge-worker.js beside the bundle that imports idb-ttl; ` +
        `where workers are forbidden, allow it with worker-src or ${silence}.`
  console.warn(`idb-ttl: ${cause}. Database "${config.name}" ${outcome}. ${advice}`)
}
