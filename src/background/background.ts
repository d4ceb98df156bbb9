/**
 * One handle's background purge: the purger (a worker, or this page in inline mode and where the
 * worker cannot start), the scheduler that runs it when the handle is the elected purger, and the
 * wake-ups (on the database's bus) with which other handles' writes reach it. A handle loads
 * this after it opened (see `handle/deferred.ts`).
 */
import type { UserActivity } from './activity.js'
import type { PurgeOptions } from '../rules/types.js'
import { PurgeScheduler } from './scheduler.js'
import type { PurgeReport } from '../events/reports.js'
import type { StoreConfigs } from '../layout/schema.js'
import { settleTouches } from '../reads/touch.js'
import { WakeChannel, type WakeMessage } from './wake.js'
import type { PurgeApi } from './worker/api.js'
import { WATCHDOG_MS, WorkerPurger } from './worker/client.js'
import { createPurgeApi } from './worker/purge-api.js'

export interface BackgroundOptions {
  name: string
  stores: StoreConfigs
  purge: Required<PurgeOptions>
  clock: () => number
  connect: () => Promise<IDBDatabase>
  activity: UserActivity
  onReport: (report: PurgeReport) => void
}

export class Background {
  readonly purger: PurgeApi & { noteActivity?(): void }
  private readonly scheduler: PurgeScheduler | undefined
  private readonly wake: WakeChannel

  constructor(private readonly options: BackgroundOptions) {
    const { name, stores, purge, clock, connect, activity, onReport } = options
    const config = { name, stores, batchSize: purge.batchSize, sliceMs: purge.sliceMs }
    // The page's own purger: the inline mode's, and the worker mode's where the worker cannot start.
    const inline = () => createPurgeApi(config, connect, () => {}, activity)
    this.purger = purge.mode === 'worker' ? new WorkerPurger(config, WATCHDOG_MS, inline) : inline()
    if (purge.mode !== 'off') {
      this.scheduler = new PurgeScheduler(this.purger, `idb-ttl:purge:${name}`, {
        clock,
        maxIntervalMs: purge.maxIntervalMs,
        idleTimeoutMs: purge.idleTimeoutMs,
        onReport,
        beforeSlice: () => settleTouches(name),
      })
    }
    const scheduler = this.scheduler
    const onWake = (m: WakeMessage) => (m.ttls ? scheduler?.noteWrite(m.store, m.ttls, m.nowMs!) : scheduler?.soon())
    this.wake = new WakeChannel(name, scheduler && onWake)
  }

  /** Whether this handle is, right now, the one purging the database (see `TtlDB.isPurger`). */
  get isPurger(): boolean {
    return this.scheduler?.isLeader ?? false
  }

  /** Wakes the purger, this handle's scheduler or another handle's, for items just written. */
  wrote(store: string, ttls: readonly unknown[]): void {
    if (this.isPurger) this.scheduler?.noteWrite(store, ttls, this.options.clock())
    else this.wake.wrote(store, ttls, this.options.clock())
  }

  /** Wakes the purger for work due now in `store` (its default changed). */
  due(store: string): void {
    if (this.isPurger) this.scheduler?.soon()
    else this.wake.due(store)
  }

  close(): void {
    this.scheduler?.stop()
    this.wake.close()
    void this.purger.close()
  }
}
