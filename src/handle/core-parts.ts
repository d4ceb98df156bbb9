/**
 * What runs beside the basic calls of any handle (`idb-ttl/core`'s and the full one's): the
 * background purge, the user activity it yields to, its reports, and the notices that tell live
 * queries (in this realm and every other) of changes. The touches a handle owes are the full
 * handle's (`parts.ts`): a core handle's reads only count those of other handles. The reports'
 * listeners (`onPurge`) and the notices are the entry's to give: an `idb-ttl/core` handle has no
 * `onPurge` and loads the notices at its first change, so that its first load carries neither.
 */
import { hearRequests, requests } from '../background/activity.js'
import type { MakeBackground, Purging } from '../background/background.js'
import type { PurgeReport } from '../events/reports.js'
import type { Connection } from '../layout/connection.js'
import type { StoreConfigs } from '../layout/schema.js'
import type { Notices } from '../live/notices.js'
import type { Touches } from '../reads/touch.js'
import type { PurgeOptions } from '../rules/types.js'

export interface PartsOptions {
  name: string
  stores: StoreConfigs
  purge: Required<PurgeOptions>
  clock: () => number
  connection: Connection
  /** The entry's background: made at once, or loaded at the first idle callback (`background/lazy.ts`). */
  background: MakeBackground
  /** Where the purge's reports go: a full handle's `onPurge` listeners (`events/reports.ts`). */
  reports: Reporting
  /**
   * The notices of the database's changes: `live/notices.ts`' `Presence`, or in `idb-ttl/core`
   * one that loads it at the handle's first change (`live/lazy-notices.ts`).
   */
  notices: (name: string) => Notices
}

/** Where a handle's purge reports go; an `idb-ttl/core` handle, which has no `onPurge`, drops them. */
export interface Reporting {
  emit(report: PurgeReport): void
  /** Reports a failure in the background, which no request of the app would hear otherwise. */
  failure(error: unknown, store?: string): void
}

export class CoreParts {
  readonly reports: Reporting
  readonly background: Purging
  /** The touches the handle owes its `touchOnRead` stores: a full handle's (`parts.ts`); a core handle owes none. */
  readonly touches: Touches | undefined = undefined
  closed = false
  /**
   * Told of each change this handle committed or heard of from its purger, and of its close while
   * its connection is still open (`storage-watch.ts`).
   */
  watcher: { changed(): void; closing(): void } | undefined = undefined
  private readonly unhear: () => void
  private readonly presence: Notices

  constructor(options: PartsOptions) {
    const { name, stores, purge, clock, connection, background, reports, notices } = options
    this.reports = reports
    this.presence = notices(name)
    this.unhear = hearRequests(() => this.background.purger.noteActivity?.())
    const connect = () => connection.native()
    const onReport = (report: PurgeReport) => {
      this.reports.emit(report)
      // A background slice (here or in the purge worker) committed these deletions.
      if (report.deleted > 0) this.changed([report.store])
    }
    this.background = background({ name, stores, purge, clock, connect, requests, onReport })
  }

  /** Committed changes of `stores`: every live query of the database hears of them, in every realm. */
  changed(stores: readonly string[]): void {
    if (stores.length > 0) this.presence.changed(stores)
    this.watcher?.changed()
  }

  /** Stops the background and the notices. */
  close(): void {
    this.watcher?.closing()
    this.closed = true
    this.presence.close()
    this.background.close()
    this.unhear()
  }
}
