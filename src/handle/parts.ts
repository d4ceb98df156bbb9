/**
 * What runs beside a handle's requests: the code loaded after open (`deferred.ts`), the touches
 * its reads owe, its background purge, the user activity that purge yields to, and its listeners
 * (`onExpire`, `onPurge`). The listeners live in the first chunk: a listener's presence (what
 * makes any tab's purge read values) must count from `onExpire` on, not from when code loaded.
 */
import { hearRequests, UserActivity } from '../background/activity.js'
import type { Background } from '../background/background.js'
import { ExpiryListeners } from '../events/listeners.js'
import { PurgeReports } from '../events/reports.js'
import type { Connection } from '../layout/connection.js'
import type { StoreConfigs } from '../layout/schema.js'
import type { Touches } from '../reads/touch.js'
import { TtlError } from '../rules/errors.js'
import type { PurgeOptions } from '../rules/types.js'

export type Deferred = typeof import('./deferred.js')

/** What a handle runs on once its deferred code has loaded. */
export interface Loaded {
  code: Deferred
  background: Background
  touches: Touches
}

export interface PartsOptions {
  name: string
  stores: StoreConfigs
  purge: Required<PurgeOptions>
  clock: () => number
  connection: Connection
  deferred: Deferred | Promise<Deferred>
}

export class Parts {
  readonly reports = new PurgeReports()
  readonly expiry: ExpiryListeners
  /** Resolves once the deferred code has loaded and the background is running. */
  readonly ready: Promise<Loaded>
  loaded: Loaded | undefined
  closed = false
  private readonly activity = new UserActivity()
  private readonly unhear: () => void

  constructor(private readonly options: PartsOptions) {
    this.expiry = new ExpiryListeners(options.name)
    this.unhear = hearRequests(() => {
      this.activity.note()
      this.loaded?.background.purger.noteActivity?.()
    })
    const { deferred } = options
    this.ready = deferred instanceof Promise ? deferred.then((code) => this.assemble(code)) : Promise.resolve(this.assemble(deferred))
    // A chunk that fails to load fails the calls that need it, each with the loader's error; the
    // background purge never starts, which onPurge hears once.
    this.ready.catch((error: unknown) => this.closed || this.reports.failure(error))
  }

  private assemble(code: Deferred): Loaded {
    if (this.closed) throw new TtlError('CLOSED', 'the database handle was closed')
    const { name, stores, purge, clock, connection } = this.options
    const sliding = Object.entries(stores).filter(([, config]) => config.touchOnRead)
    const connect = () => connection.native()
    const keyPaths = new Map(sliding.map(([store, config]) => [store, config.keyPath!]))
    const touches = new code.Touches(name, connect, keyPaths, (error) => this.reports.failure(error))
    const onReport = (report: Parameters<PurgeReports['emit']>[0]) => this.reports.emit(report)
    const background = new code.Background({ name, stores, purge, clock, connect, activity: this.activity, onReport })
    return (this.loaded = { code, touches, background })
  }

  /** Stops the background and listeners; pending touches are written on `db`, kept open until they commit. */
  close(db: IDBDatabase | undefined): void {
    this.closed = true
    this.expiry.clear()
    this.loaded?.background.close()
    this.loaded?.touches.flushOn(db)
    this.unhear()
  }
}
