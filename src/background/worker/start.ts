/**
 * The purge worker's start, apart from the rest of `background/`: the entries that purge in a
 * worker import it (`open-page.ts`), and `idb-ttl/service-worker` does not, so that its bundle
 * carries no worker file.
 */
import type { StartWorker } from '../background.js'
import type { PurgeApi, PurgeConfig } from './api.js'
import { WATCHDOG_MS, WorkerPurger } from './client.js'

export const startPurgeWorker: StartWorker = (config, inline) => new WorkerPurger(config, WATCHDOG_MS, (reason) => inlineInstead(config, reason, inline))

/**
 * The page's own purger, for a worker that could not start (`reason`), and the one console warning
 * that says so, naming the URL and what to do. Here, not in the client: `idb-ttl/core`, which has
 * no page purger to fall back on, carries none of it.
 */
function inlineInstead(config: PurgeConfig, reason: Error, inline: () => PurgeApi): PurgeApi {
  const cause = reason.message.replace(/\.+$/, '')
  // A global with no Worker at all (a service worker; a shared worker outside Firefox): nothing to ship or allow.
  const advice =
    typeof Worker === 'undefined'
      ? `This global (${globalThis.constructor?.name ?? 'a worker'}) cannot start workers: set purge: { mode: 'inline' } here, which also silences this warning.`
      : `If your bundler does not ship the worker (esbuild, for one), copy node_modules/idb-ttl/dist/purge-worker.js beside the bundle that imports idb-ttl; ` +
        `where workers are forbidden, allow it with worker-src or set purge: { mode: 'inline' }, which also silences this warning.`
  console.warn(`idb-ttl: ${cause}. Database "${config.name}" is purged inline, on this thread (as with purge: { mode: 'inline' }). ${advice}`)
  return inline()
}
