/**
 * What runs beside a full handle's requests: the core's parts (`core-parts.ts`: touches, the
 * background purge, the notices of changes), its listeners (`onExpire`, `onPurge`) and its live
 * queries.
 */
import { createPurgeApi } from '../background/worker/purge-api.js'
import { ExpiryListeners } from '../events/listeners.js'
import { LiveHub } from '../live/hub.js'
import { CoreParts, type PartsOptions } from './core-parts.js'

/** The page's own purger of the full handle: the inline mode's, and the worker mode's fallback. */
export const inlinePurger: PartsOptions['pagePurger'] = (config, connect, activity) => createPurgeApi(config, connect, () => {}, activity)

export class Parts extends CoreParts {
  readonly expiry: ExpiryListeners
  readonly live: LiveHub

  constructor(options: PartsOptions) {
    super(options)
    this.expiry = new ExpiryListeners(options.name)
    this.live = new LiveHub(options.name, options.clock, this.touches)
  }

  /** Stops the core's parts, the listeners and the live queries. */
  override close(db: IDBDatabase | undefined): void {
    this.closed = true
    this.expiry.clear()
    this.live.close()
    super.close(db)
  }
}
