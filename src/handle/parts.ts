/**
 * What runs beside a handle's requests: the touches its reads owe, its background purge, the
 * user activity that purge yields to, its listeners (`onExpire`, `onPurge`) and its live queries.
 */
import { hearRequests, UserActivity } from '../background/activity.js'
import { Background, type StartWorker } from '../background/background.js'
import { ExpiryListeners } from '../events/listeners.js'
import { PurgeReports } from '../events/reports.js'
import type { Connection } from '../layout/connection.js'
import { LiveHub } from '../live/hub.js'
import type { StoreConfigs } from '../layout/schema.js'
import { Touches } from '../reads/touch.js'
import type { PurgeOptions } from '../rules/types.js'

export interface PartsOptions {
  name: string
  stores: StoreConfigs
  purge: Required<PurgeOptions>
  clock: () => number
  connection: Connection
  startWorker: StartWorker | undefined
}

export class Parts {
  readonly reports = new PurgeReports()
  readonly expiry: ExpiryListeners
  readonly background: Background
  readonly touches: Touches
  readonly live: LiveHub
  closed = false
  private readonly activity = new UserActivity()
  private readonly unhear: () => void

  constructor(options: PartsOptions) {
    const { name, stores, purge, clock, connection, startWorker } = options
    this.expiry = new ExpiryListeners(name)
    this.unhear = hearRequests(() => {
      this.activity.note()
      this.background.purger.noteActivity?.()
    })
    const sliding = Object.entries(stores).filter(([, config]) => config.touchOnRead)
    const connect = () => connection.native()
    const keyPaths = new Map(sliding.map(([store, config]) => [store, config.keyPath!]))
    const touched = (store: string, written: boolean) => (written ? this.live.changed([store]) : this.live.touched([store]))
    this.touches = new Touches(name, connect, keyPaths, (error) => this.reports.failure(error), touched)
    this.live = new LiveHub(name, clock, this.touches)
    const onReport = (report: Parameters<PurgeReports['emit']>[0]) => {
      this.reports.emit(report)
      // A background slice (here or in the purge worker) committed these deletions.
      if (report.deleted > 0) this.live.changed([report.store])
    }
    this.background = new Background({ name, stores, purge, clock, connect, activity: this.activity, onReport, startWorker })
  }

  /** Stops the background, listeners and live queries; pending touches are written on `db`, kept open until they commit. */
  close(db: IDBDatabase | undefined): void {
    this.closed = true
    this.expiry.clear()
    this.live.close()
    this.background.close()
    this.touches.flushOn(db)
    this.unhear()
  }
}
