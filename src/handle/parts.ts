/**
 * What runs beside a full handle's requests: the core's parts (`core-parts.ts`: the background
 * purge, the notices of changes), the touches it owes its `touchOnRead` stores, its listeners
 * (`onExpire`, `onPurge`) and its live queries.
 */
import { ExpiryListeners } from '../events/listeners.js'
import type { PurgeReports } from '../events/reports.js'
import { LiveHub } from '../live/hub.js'
import type { LiveSource } from '../live/query.js'
import { tellRealm } from '../live/notices.js'
import type { Touches } from '../reads/touch.js'
import { touchRealm } from '../reads/touched.js'
import { generationsWith, type StashWork } from '../writes/writes.js'
import type { Generations } from '../writes/write-steps.js'
import { CoreParts, type PartsOptions } from './core-parts.js'

/** The touches a handle owes its `touchOnRead` stores (`reads/touch.ts`), as its open loads them. */
export type TouchWork = { Touches: typeof Touches }

export class Parts extends CoreParts {
  /** The handle's `onPurge` listeners, which its open gave as the reports' destination. */
  declare readonly reports: PurgeReports
  override readonly touches: Touches | undefined
  readonly expiry: ExpiryListeners
  readonly live: LiveHub
  /**
   * How the handle reads and writes the values of stores that keep them in generations
   * (`evictOnQuota`), with what `stashWork` loads at the first such read or write.
   */
  readonly generations: Generations
  private readonly connection: PartsOptions['connection']

  /**
   * `touchWork`: `reads/touch.ts`, which the open loads where a store declares `touchOnRead`;
   * without it the handle owes no touches, as one whose stores do not slide. `follow`: loads what
   * runs a subscribed live query (`live/subscribers.ts`). `stashWork`: loads what reads and writes
   * values kept in generations (`writes.ts` {@link StashWork}).
   */
  constructor(options: PartsOptions & { reports: PurgeReports }, touchWork: TouchWork | undefined, follow: LiveSource['follow'], stashWork: () => Promise<StashWork>) {
    super(options)
    const { name, stores, clock, connection } = options
    this.connection = connection
    const sliding = Object.entries(stores).filter(([, config]) => config.touchOnRead)
    const keyPaths = new Map(sliding.map(([store, config]) => [store, config.keyPath!]))
    const touched = (store: string, written: boolean) => (written ? this.changed([store]) : tellRealm(name, [store]))
    // The realm's registries from this copy of the library, whichever copy the touches were loaded from.
    this.touches = touchWork && new touchWork.Touches(touchRealm, name, () => connection.native(), clock, keyPaths, (error) => this.reports.failure(error), touched)
    this.expiry = new ExpiryListeners(name)
    this.generations = generationsWith(stashWork)
    this.live = new LiveHub(name, clock, { generations: this.generations }, follow)
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
    this.touches?.flushOn(this.connection.openNow)
  }
}
