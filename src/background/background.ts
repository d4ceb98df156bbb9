/**
 * One handle's background purge: the purger (a worker, or this page in inline mode and where the
 * worker cannot start), the scheduler that runs it when the handle is the elected purger, and the
 * wake-ups (on the database's bus) with which other handles' writes reach it.
 */
import type { RequestTimes } from './activity.js'
import { UserActivity } from './courtesy.js'
import type { PurgeOptions } from '../rules/types.js'
import { PurgeScheduler } from './scheduler.js'
import type { PurgeReport } from '../events/reports.js'
import type { StoreConfigs } from '../layout/schema.js'
import { isKeepableTs } from '../layout/stamp.js'
import { bucketOf } from '../platform/factory.js'
import { settleTouches } from '../reads/owed-touches.js'
import { WakeChannel, type WakeMessage } from './wake.js'
import type { PurgeApi, PurgeConfig } from './worker/api.js'

/**
 * Starts the purge worker (`worker/start.ts`), given the page's own purger to fall back on. An
 * entry without it (`idb-ttl/service-worker`) purges inline and carries no worker file: a bundler
 * ships the worker wherever `new Worker(new URL(…))` is in the module graph.
 */
export type StartWorker = (config: PurgeConfig, inline: () => PurgeApi) => PurgeApi & { noteActivity?(): void }

/**
 * Makes the page's own purger (`worker/purge-api.ts` `createPurgeApi`, the inline mode's), given
 * by the handle so that an entry that purges only in its worker (`idb-ttl/core`) carries no purge.
 */
export type PagePurger = (config: PurgeConfig, connect: () => Promise<IDBDatabase>, activity: UserActivity) => PurgeApi & { noteActivity?(): void }

/**
 * What a handle holds of its background purge: a {@link Background}, or on a page that loads it at
 * the first idle callback, the stand-in that forwards to one (`lazy.ts`).
 */
export interface Purging {
  /** What the handle calls of the purger: `purgeExpired`'s purge, and each request told to a worker. */
  readonly purger: Pick<PurgeApi, 'purgeAll'> & { noteActivity?(): void }
  readonly isPurger: boolean
  /**
   * `nowMs`: when the items were written (default: now). `everyone`: told before this background
   * was made (`lazy.ts`), when the handle was no purger: the other handles' purger hears of them
   * too, as it would have then.
   */
  wrote(store: string, values: readonly unknown[], nowMs?: number, everyone?: boolean): void
  due(store: string, everyone?: boolean): void
  purgeFor(budgetMs: number): Promise<void>
  close(): void
}

/** What a handle gives its background; each entry adds how its purge starts (`inline.ts`, `page.ts`, `core.ts`). */
export type BackgroundParts = Omit<BackgroundOptions, 'startWorker' | 'pagePurger'>

/** Makes a handle's background: an entry's choice of how its purge starts, given to the handle. */
export type MakeBackground = (options: BackgroundParts) => Purging

export interface BackgroundOptions {
  name: string
  stores: StoreConfigs
  purge: Required<PurgeOptions>
  clock: () => number
  connect: () => Promise<IDBDatabase>
  /** When the app's latest request started (`activity.ts`): the page's purge yields to it. */
  requests: RequestTimes
  onReport: (report: PurgeReport) => void
  /** Absent: every mode but `'off'` purges inline. */
  startWorker: StartWorker | undefined
  /** The page's own purger: the inline mode's, the `'off'` mode's `purgeExpired`, and the worker's fallback. */
  pagePurger: PagePurger
}

export class Background implements Purging {
  readonly purger: PurgeApi & { noteActivity?(): void }
  private readonly scheduler: PurgeScheduler | undefined
  private readonly wake: WakeChannel
  /** Per store, the second and the `ttl` values this handle's latest wake-ups announced. */
  private readonly announced = new Map<string, { second: number; ttls: Set<unknown> }>()

  constructor(private readonly options: BackgroundOptions) {
    const { name, stores, purge, clock, connect, requests, onReport, startWorker, pagePurger } = options
    const config = { name, stores, batchSize: purge.batchSize, sliceMs: purge.sliceMs, bucket: bucketOf(name)?.name }
    // The page's own purger: the inline mode's, and the worker mode's where the worker cannot start.
    const inline = () => pagePurger(config, connect, new UserActivity(undefined, undefined, requests))
    this.purger = purge.mode === 'worker' && startWorker ? startWorker(config, inline) : inline()
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

  /**
   * Wakes the purger, this handle's scheduler or another handle's, for items just written (the
   * values as given, or as stored), at `nowMs`. Each item's countdown starts at its `_ts`: the write's time,
   * or, in a `keepTs` (or mirrored) store, the value's own `_ts`, which may make it die much sooner (at once).
   */
  wrote(store: string, values: readonly unknown[], nowMs = this.options.clock(), everyone = false): void {
    const config = this.options.stores[store]
    const keeps = config?.keepTs === true || config?.mirror === true
    // Items grouped by when their countdown starts, as a write at that time would stamp them.
    const byStart = new Map<number, unknown[]>()
    for (const value of values) {
      const { ttl, _ts } = (value ?? {}) as { ttl?: unknown; _ts?: unknown }
      const start = keeps && isKeepableTs(_ts) ? _ts * 1000 : nowMs
      const group = byStart.get(start)
      if (group) group.push(ttl)
      else byStart.set(start, [ttl])
    }
    for (const [start, ttls] of byStart) {
      if (this.isPurger) this.scheduler?.noteWrite(store, ttls, start)
      if ((everyone || !this.isPurger) && this.tellsNews(store, ttls, start)) this.wake.wrote(store, ttls, start)
    }
  }

  /**
   * Whether a wake for these items could change the purger's plan. Items of a second and `ttl`
   * this handle already announced die with those (their marks are equal), and the purger's next
   * wake-up, set by that message or read from the expiry index since, is no later: posting again
   * would cost each write a message for nothing. A capped store's writes are always announced
   * (each may need a trim).
   */
  private tellsNews(store: string, ttls: readonly unknown[], start: number): boolean {
    if (this.options.stores[store]?.maxEntries !== undefined) return true
    const second = Math.floor(start / 1000)
    const last = this.announced.get(store)
    if (last?.second !== second) {
      this.announced.set(store, { second, ttls: new Set(ttls) })
      return true
    }
    if (ttls.every((ttl) => last.ttls.has(ttl))) return false
    ttls.forEach((ttl) => last.ttls.add(ttl))
    return true
  }

  /** Wakes the purger for work due now in `store` (its default changed). */
  due(store: string, everyone = false): void {
    if (this.isPurger) this.scheduler?.soon()
    if (everyone || !this.isPurger) this.wake.due(store)
  }

  /** Purges what is due now for at most `budgetMs`, if this handle is the purger (`during.ts`: `purgeDuring`). */
  async purgeFor(budgetMs: number): Promise<void> {
    await this.scheduler?.during(budgetMs)
  }

  close(): void {
    this.scheduler?.stop()
    this.wake.close()
    void this.purger.close()
  }
}
