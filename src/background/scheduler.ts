/**
 * Page side of the background purge: runs one slice at a time from idle callbacks, sleeps until
 * the next expiry (capped), wakes early when writes make something due sooner, backs off after
 * failures, and only runs while this connection is the elected purger (which it may stop being).
 */
import { describeError } from '../rules/errors.js'
import { whenIdle } from './idle.js'
import { electLeader, type Leadership } from './leader.js'
import { expiryOf, stampOf, ttlOf, type DefaultTtl } from '../rules/ttl.js'
import type { PurgeApi, SliceReport } from './worker/api.js'
import type { PurgeReport } from '../events/reports.js'

export interface SchedulerOptions {
  clock: () => number
  maxIntervalMs: number
  idleTimeoutMs: number
  /** Receives each report; must not throw. */
  onReport: (report: PurgeReport) => void
  /** Runs before each slice: the touches the realm owes reach the disk first (`reads/owed-touches.ts`). */
  beforeSlice?: () => Promise<void>
}

/** Back-off after the first failure; it doubles with each failure in a row. */
const BACKOFF_MS = 1000
/** At most 2^6 × {@link BACKOFF_MS} (about a minute): a lasting failure costs one try a minute. */
const MAX_BACKOFF_STEPS = 6
/**
 * When a slice leaves dead items behind, the next one waits for an idle moment at most this
 * long rather than `idleTimeoutMs`: on a page that is never idle, slices of small courteous
 * batches (50 keys) two seconds apart would fall behind a steady 25 writes a second. The batches
 * stay the courteous ones, so user requests still go first.
 */
const FOLLOW_UP_TIMEOUT_MS = 100
/**
 * A write to a store with `maxEntries` wakes the purger to trim it, but at most this long after
 * the last slice ended: a stream of writes is trimmed once a second rather than after every
 * write, each slice evicting what the writes since the last one added (in one batch: `purge.ts`).
 * Each trim holds the store while it finds the oldest items, which reads the values of the
 * second it stops in (a whole second of a stream's writes): at 250 ms, the 10k puts of
 * `capped-writes-10k` paid 70 to 85 trims, each reading 1,100–1,500 values, where 1 s pays 18 to 24.
 */
const TRIM_INTERVAL_MS = 1000
/** How long {@link PurgeScheduler.during} waits for the purge lock of a connection just opened. */
const LEAD_WAIT_MS = 250
/** `setTimeout`'s longest delay (2^31-1 ms); a longer one overflows and fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1

export class PurgeScheduler {
  private cancel: (() => void) | undefined
  private wakeAt = Infinity
  /** The same moment in real time (`performance.now()`): the injected clock may jump. */
  private wakeAtReal = Infinity
  /** An idle callback is pending: its timeout bounds the wait, so it is never restarted. */
  private idlePending = false
  /** Sleeping off a failure: requests for a slice wait for the retry rather than cut it short. */
  private backingOff = false
  private running = false
  /** The slice under way, while {@link running}. */
  private current: Promise<void> | undefined
  private rerun = false
  private leading = false
  private stopped = false
  private failures = 0
  /** A capped store was written while a slice ran: trim it after this slice. */
  private trimDue = false
  /** When the first item written while a slice ran dies (epoch ms, the clock's): the slice sleeps no later. */
  private writtenDue = Infinity
  /** When the last slice ended (`performance.now()`). */
  private lastSliceEnd = -Infinity
  private readonly defaults = new Map<string, DefaultTtl>()
  /** Stores with `maxEntries`, as the last slices reported them. */
  private readonly capped = new Set<string>()
  private readonly leadership: Leadership

  constructor(
    private readonly purger: PurgeApi,
    lockName: string,
    private readonly options: SchedulerOptions,
  ) {
    this.leadership = electLeader(lockName, (leading) => {
      this.leading = leading
      if (!leading) this.rest()
      else if (this.failures > 0) this.backOff()
      else this.soon()
    })
  }

  /** Whether this connection currently holds the purge lock. */
  get isLeader(): boolean {
    return this.leading && !this.stopped
  }

  /** Runs a slice at the next idle moment (merged with one already running or requested). */
  soon(): void {
    if (!this.isLeader || this.backingOff) return
    this.wake()
  }

  private wake(idleTimeoutMs = this.options.idleTimeoutMs): void {
    if (this.stopped) return
    if (this.running) {
      this.rerun = true
      return
    }
    if (this.idlePending) return
    this.cancel?.()
    this.wakeAt = this.options.clock()
    this.wakeAtReal = performance.now()
    this.idlePending = true
    this.cancel = whenIdle(() => void (this.current = this.run()), Math.min(idleTimeoutMs, MAX_TIMER_MS))
  }

  /**
   * Purges now, while the caller keeps this realm alive (a service worker's event): slices one
   * after another, without waiting for an idle moment or the timer, until nothing is due, the
   * budget (real ms) is spent, or another connection is the purger. A connection just opened
   * waits a moment for the purge lock when nobody holds it.
   */
  async during(budgetMs: number): Promise<void> {
    const end = performance.now() + budgetMs
    const leadWait = Math.min(end, performance.now() + LEAD_WAIT_MS)
    if (!this.isLeader && (await this.leadership.heldElsewhere())) return
    while (!this.isLeader && !this.stopped && performance.now() < leadWait) await new Promise((resolve) => setTimeout(resolve, 10))
    // At least one slice of its own: one already under way may have started before the work due.
    let ran = false
    while (this.isLeader && !this.backingOff && (!ran || performance.now() < end)) {
      if (this.running) {
        await this.current
        continue
      }
      if (!this.idlePending && this.wakeAt > this.options.clock()) return
      this.cancel?.()
      await (this.current = this.run())
      ran = true
    }
  }

  /** Items were written at `nowMs` with these `ttl` fields: wake earlier if one dies sooner. */
  noteWrite(store: string, ttls: readonly unknown[], nowMs: number): void {
    if (!this.isLeader || this.backingOff || this.idlePending) return
    const defaultTtl = this.defaults.get(store)
    if (defaultTtl === undefined) return this.soon()
    if (this.capped.has(store)) return this.trimSoon()
    const _ts = stampOf(nowMs)
    let due = Infinity
    for (const ttl of ttls) due = Math.min(due, expiryOf(ttlOf(ttl, 'lenient')!, defaultTtl, _ts))
    // A slice under way may have read the next expiry before this write: it sleeps no later than
    // this death. Not a slice again: with writes streaming in, each slice would start the next, and
    // the purge would hold the database for as long as they come (each put then took 2.5 times as long).
    if (this.running) this.writtenDue = Math.min(this.writtenDue, due)
    else if (due < this.wakeAt) this.sleepUntil(due)
  }

  /** A slice to trim a capped store, {@link TRIM_INTERVAL_MS} after the last one at the earliest. */
  private trimSoon(): void {
    if (this.running) {
      this.trimDue = true
      return
    }
    const delay = Math.max(0, this.lastSliceEnd + TRIM_INTERVAL_MS - performance.now())
    if (performance.now() + delay < this.wakeAtReal) this.sleepUntil(this.options.clock() + delay)
  }

  private sleepUntil(atMs: number): void {
    const now = this.options.clock()
    const delay = Math.min(Math.max(atMs - now, 0), this.options.maxIntervalMs, MAX_TIMER_MS)
    this.cancel?.()
    this.wakeAt = now + delay
    this.wakeAtReal = performance.now() + delay
    const id = setTimeout(() => {
      this.cancel = undefined
      this.backingOff = false
      this.wake()
    }, delay)
    this.cancel = () => clearTimeout(id)
  }

  private async run(): Promise<void> {
    this.cancel = undefined
    this.idlePending = false
    this.running = true
    const started = performance.now()
    let reports: SliceReport[] = []
    let failure: { name: string; message: string } | undefined
    try {
      await this.options.beforeSlice?.()
      // The clock itself, not its reading: each batch judges by the time when it runs.
      reports = await this.purger.slice(this.options.clock)
      this.failures = 0
    } catch (error) {
      this.failures++
      failure = describeError(error)
    }
    this.lastSliceEnd = performance.now()
    // close() may have come while the slice ran (it ends the worker, failing the slice) or from
    // a listener below: after it, nothing is reported and nothing is scheduled.
    if (this.stopped) return void (this.running = false)
    // Running until the listeners are done: what they ask for (a trim, a slice) is kept for what
    // follows, not cancelled by the sleep it sets.
    try {
      if (failure) {
        this.options.onReport({ store: '*', deleted: 0, durationMs: performance.now() - started, more: false, nextExpiryMs: NaN, error: failure })
      }
      for (const report of reports) {
        this.defaults.set(report.store, report.defaultTtl)
        if (report.capped) this.capped.add(report.store)
        else this.capped.delete(report.store)
      }
      for (const { defaultTtl, capped, ...report } of reports) if (report.deleted > 0 && !this.stopped) this.options.onReport(report)
    } finally {
      this.running = false
    }
    const trimDue = this.trimDue
    this.trimDue = false
    const writtenDue = this.writtenDue
    this.writtenDue = Infinity
    // Stopped by a listener, or no longer the purger: the next slice is someone else's.
    if (!this.isLeader) return
    if (this.failures > 0) {
      this.rerun = false
      this.backOff()
      // Another tab waiting for the lock may succeed where this one failed; if it takes over and
      // fails too, it hands the lock back, and each retries only after its own back-off.
      this.leadership.toBack()
    } else if (reports.some((r) => r.more)) {
      this.rerun = false
      this.wake(Math.min(this.options.idleTimeoutMs, FOLLOW_UP_TIMEOUT_MS))
    } else if (this.rerun) {
      this.rerun = false
      this.wake()
    } else {
      const trimAt = trimDue ? this.options.clock() + TRIM_INTERVAL_MS : Infinity
      this.sleepUntil(Math.min(trimAt, writtenDue, ...reports.map((r) => r.nextExpiryMs)))
    }
  }

  private backOff(): void {
    this.backingOff = true
    this.sleepUntil(this.options.clock() + BACKOFF_MS * 2 ** Math.min(this.failures - 1, MAX_BACKOFF_STEPS))
  }

  /** No timer, no idle callback: after a step down, until the lock comes back. */
  private rest(): void {
    this.cancel?.()
    this.cancel = undefined
    this.idlePending = false
    this.backingOff = false
    this.rerun = false
  }

  /** Stops for good: no timer, no idle callback, the lock given up. */
  stop(): void {
    this.stopped = true
    this.rest()
    this.leadership.release()
  }
}
