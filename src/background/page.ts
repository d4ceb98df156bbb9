/**
 * The backgrounds of the page entries' handles (on a page, or in a dedicated or shared worker),
 * which start the purge worker. Loaded with `import()` at the first idle callback (`lazy.ts`,
 * `open-page.ts`, `open-core.ts`); `idb-ttl/service-worker` never imports it, so its bundler ships
 * no worker file.
 */
import { Background, type MakeBackground, type PagePurger } from './background.js'
import { startCorePurgeWorker, startPurgeWorker } from './worker/start.js'
import { bucketOf } from '../platform/factory.js'

/** `idb-ttl`'s: the purge worker, with the page's own purger (`inline.ts`, loaded beside this) to fall back on. */
export const fullBackground =
  (pagePurger: PagePurger): MakeBackground =>
  (options) =>
    new Background({ ...options, startWorker: startPurgeWorker, pagePurger })

/** `idb-ttl/core`'s: no purger on the page, the worker is the purger in every mode (in `'off'`, for `purgeExpired`). */
export const coreBackground: MakeBackground = (options) => {
  const { name, stores, purge } = options
  const pagePurger = () => startCorePurgeWorker({ name, stores, batchSize: purge.batchSize, sliceMs: purge.sliceMs, bucket: bucketOf(name)?.name })
  return new Background({ ...options, startWorker: undefined, pagePurger })
}
