/**
 * The page's own purger (`worker/purge-api.ts`), made for `Background`: the inline mode's, and the
 * worker mode's fallback, of the full handle; `idb-ttl/service-worker`'s background, made at once
 * and purging inline. `idb-ttl/core`, which purges in its worker alone, carries none of it.
 */
import { Background, type MakeBackground, type PagePurger } from './background.js'
import { createPurgeApi } from './worker/purge-api.js'

/** The page's own purger of the full handle: the inline mode's, and the worker mode's fallback. */
export const inlinePurger: PagePurger = (config, connect, activity) => createPurgeApi(config, connect, () => {}, activity)

/** `idb-ttl/service-worker`'s background: every mode but `'off'` purges inline, on this thread. */
export const inlineBackground: MakeBackground = (options) => new Background({ ...options, startWorker: undefined, pagePurger: inlinePurger })
