/**
 * What runs beside a full handle's requests: the core's parts (`core-parts.ts`: the background
 * purge, the notices of changes), the touches it owes its `touchOnRead` stores, its listeners
 * (`onExpire`, `onPurge`) and its live queries.
 */
import { ExpiryListeners } from '../events/listeners.js'
import { LiveHub } from '../live/hub.js'
import { tellRealm } from '../live/notices.js'
import { Touches } from '../reads/touch.js'
import { generationValues } from '../generations/values.js'
import { CoreParts, type PartsOptions } from './core-parts.js'

export class Parts extends CoreParts {
  override readonly touches: Touches
  readonly expiry: ExpiryListeners
  readonly live: LiveHub
  private readonly connection: PartsOptions['connection']

  constructor(options: PartsOptions) {
    super(options)
    const { name, stores, clock, connection } = options
    this.connection = connection
    const sliding = Object.entries(stores).filter(([, config]) => config.touchOnRead)
    const keyPaths = new Map(sliding.map(([store, config]) => [store, config.keyPath!]))
    const touched = (store: string, written: boolean) => (written ? this.changed([store]) : tellRealm(name, [store]))
    this.touches = new Touches(name, () => connection.native(), clock, keyPaths, (error) => this.reports.failure(error), touched)
    this.expiry = new ExpiryListeners(name)
    this.live = new LiveHub(name, clock, { touches: this.touches, generations: generationValues })
  }

  /**
   * Stops the core's parts, the listeners and the live queries; pending touches are written on
   * the connection open now, which the handle closes next (it stays open until they commit).
   */
  override close(): void {
    this.closed = true
    this.expiry.clear()
    this.live.close()
    super.close()
    this.touches.flushOn(this.connection.openNow)
  }
}
