/**
 * Page side of the background purge: runs one slice at a time from idle callbacks, sleeps until
 * the next expiry (capped), wakes early when writes make something due sooner, backs off after
 * failures, and only runs while this connection is the elected purger.
 */
import { electLeader, type Leadership } from './leader.js'
import { expiresAt, stampOf, type DefaultTtl } from './ttl.js'
import type { PurgeApi, SliceReport } from './worker/api.js'

/** What a purge did, or why it failed; delivered to `db.onPurge` listeners. */
export interface PurgeReport {
  /** The store purged; `'*'` when a failure hit the whole slice. */
  store: string
  deleted: number
  durationMs: number
  /** Dead items remain; the next slice follows at the next idle moment. */
  more: boolean
  /** When the next item of the store dies (epoch ms by the injected clock); `Infinity`: none will. */
  nextExpiryMs: number
  error?: { name: string; message: string }
}

export interface SchedulerOptions {
  clock: () => number
  maxIntervalMs: number
  idleTimeoutMs: number
  /** Receives each report; must not throw. */
  onReport: (report: PurgeReport) => void
}

/** `requestIdleCallback` where it exists; `setTimeout` in workers, Safari and Node. */
function whenIdle(run: () => void, timeout: number): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(run, { timeout })
    return () => cancelIdleCallback(id)
  }
  const id = setTimeout(run, 0)
  return () => clearTimeout(id)
}

const MAX_BACKOFF_STEPS = 6

export class PurgeScheduler {
  private cancel: (() => void) | undefined
  private wakeAt = Infinity
  private running = false
  private rerun = false
  private leading = false
  private stopped = false
  private failures = 0
  private readonly defaults = new Map<string, DefaultTtl>()
  private readonly leadership: Leadership

  constructor(
    private readonly purger: PurgeApi,
    lockName: string,
    private readonly options: SchedulerOptions,
  ) {
    this.leadership = electLeader(lockName, () => {
      this.leading = true
      this.soon()
    })
  }

  /** Whether this connection currently holds the purge lock. */
  get isLeader(): boolean {
    return this.leading && !this.stopped
  }

  /** Runs a slice at the next idle moment (merged with one already running). */
  soon(): void {
    if (!this.isLeader) return
    if (this.running) {
      this.rerun = true
      return
    }
    this.cancel?.()
    this.wakeAt = this.options.clock()
    this.cancel = whenIdle(() => void this.run(), this.options.idleTimeoutMs)
  }

  /** Items were written at `nowMs` with these `ttl` fields: wake earlier if one dies sooner. */
  noteWrite(store: string, ttls: readonly unknown[], nowMs: number): void {
    if (!this.isLeader) return
    const defaultTtl = this.defaults.get(store)
    // A slice under way may have read the next expiry before this write: have it run again.
    if (defaultTtl === undefined || this.running) return this.soon()
    const _ts = stampOf(nowMs)
    let due = Infinity
    for (const ttl of ttls) due = Math.min(due, expiresAt({ ttl, _ts }, defaultTtl, { ttlValues: 'lenient' }))
    if (due < this.wakeAt) this.sleepUntil(due)
  }

  private sleepUntil(atMs: number): void {
    const now = this.options.clock()
    const delay = Math.min(Math.max(atMs - now, 0), this.options.maxIntervalMs)
    this.cancel?.()
    this.wakeAt = now + delay
    const id = setTimeout(() => this.soon(), delay)
    this.cancel = () => clearTimeout(id)
  }

  private async run(): Promise<void> {
    this.cancel = undefined
    this.running = true
    const started = performance.now()
    let reports: SliceReport[] = []
    try {
      reports = await this.purger.slice(this.options.clock())
      this.failures = 0
    } catch (error) {
      this.failures++
      const { name = 'Error', message = String(error) } = (error ?? {}) as Error
      this.options.onReport({ store: '*', deleted: 0, durationMs: performance.now() - started, more: false, nextExpiryMs: NaN, error: { name, message } })
    }
    this.running = false
    if (this.stopped) return
    for (const report of reports) this.defaults.set(report.store, report.defaultTtl)
    for (const { defaultTtl, ...report } of reports) if (report.deleted > 0) this.options.onReport(report)
    if (this.rerun || reports.some((r) => r.more)) {
      this.rerun = false
      this.soon()
    } else if (this.failures > 0) {
      const backoff = 1000 * 2 ** Math.min(this.failures - 1, MAX_BACKOFF_STEPS)
      this.sleepUntil(this.options.clock() + backoff)
    } else {
      this.sleepUntil(Math.min(...reports.map((r) => r.nextExpiryMs)))
    }
  }

  /** Stops for good: no timer, no idle callback, the lock given up. */
  stop(): void {
    this.stopped = true
    this.cancel?.()
    this.cancel = undefined
    this.leadership.release()
  }
}
