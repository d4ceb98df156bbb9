/**
 * The background purge of a page entry (`idb-ttl`, `idb-ttl/core`), loaded with `import()` at the
 * first idle callback (within 100 ms), before its first slice would run anyway: the scheduler, the leader, the
 * wake-ups and the worker's client (with comlink) stay out of what a page loads before its first
 * `get`. Until then the handle holds this stand-in, which keeps what it is told (writes' wake-ups,
 * with their time) for the background it makes once loaded. `idb-ttl/service-worker` makes its
 * `Background` at once (`inline.ts`): service workers forbid `import()`.
 */
import type { BackgroundParts, MakeBackground, Purging } from './background.js'
import { whenIdle } from './idle.js'
import { TtlError } from '../rules/errors.js'

/**
 * At the latest this long after the handle is made, idle or not: on a page that is never idle, the
 * scheduler's own first wait for an idle moment (`idleTimeoutMs`) must not come on top of this one.
 */
const LOAD_WITHIN_MS = 100

/** A page entry's background, made by the module `load` brings at the first idle callback. */
export function lazyBackground(load: () => Promise<{ makeBackground: MakeBackground }>): MakeBackground {
  return (options) => new LazyBackground(options, load)
}

class LazyBackground implements Purging {
  readonly purger: Purging['purger']
  private background: Purging | undefined
  private loading: Promise<Purging> | undefined
  private closed = false
  /** The load failed, and no other is under way: what the handle says is not kept for it. */
  private failed = false
  private warned = false
  /** What the handle said before the background was loaded, in order. */
  private readonly told: ((background: Purging) => void)[] = []
  private readonly cancelIdle: () => void

  constructor(
    private readonly options: BackgroundParts,
    private readonly load: () => Promise<{ makeBackground: MakeBackground }>,
  ) {
    let idle = true
    const cancel = whenIdle(() => {
      idle = false
      void this.loaded().catch(() => {})
    }, Math.min(options.purge.idleTimeoutMs, LOAD_WITHIN_MS))
    this.cancelIdle = () => idle && cancel()
    this.purger = {
      // Every argument passed on as given: a parameter the purger gains is never dropped here.
      purgeAll: async (...args) => (await this.loaded()).purger.purgeAll(...args),
      noteActivity: () => this.background?.purger.noteActivity?.(),
    }
  }

  get isPurger(): boolean {
    return this.background?.isPurger ?? false
  }

  wrote(store: string, values: readonly unknown[], nowMs = this.options.clock()): void {
    if (this.background) this.background.wrote(store, values, nowMs)
    else if (!this.failed) {
      // What `Background.wrote` reads of each value, read now as it would read it: the app may
      // reuse its objects before the background is loaded, and their values need not be held.
      const marks = values.map((value) => ({ ttl: (value as { ttl?: unknown } | null)?.ttl, _ts: (value as { _ts?: unknown } | null)?._ts }))
      this.told.push((background) => background.wrote(store, marks, nowMs, true))
    }
  }

  due(store: string): void {
    if (this.background) this.background.due(store)
    else if (!this.failed) this.told.push((background) => background.due(store, true))
  }

  async purgeFor(budgetMs: number): Promise<void> {
    await (await this.loaded()).purgeFor(budgetMs)
  }

  close(): void {
    this.closed = true
    this.cancelIdle()
    this.background?.close()
  }

  /**
   * The background, loaded and made once (now, if a call needs it before the idle callback). A
   * load that failed is tried again by the next call that needs the background (`purgeExpired`):
   * the chunk may be reachable by then.
   */
  private loaded(): Promise<Purging> {
    if (this.closed && !this.loading) return Promise.reject(closedError())
    this.failed = false
    this.loading ??= this.load().then(
      ({ makeBackground }) => {
        if (this.closed) throw closedError()
        const background = makeBackground(this.options)
        this.background = background
        for (const tell of this.told.splice(0)) tell(background)
        return background
      },
      (reason: unknown) => {
        if (!this.closed && !this.warned) console.warn(`idb-ttl: the background purge could not be loaded (${String(reason)}). Database "${this.options.name}" is not purged.`)
        this.warned = true
        // Not kept for a load that may never succeed; the purger loaded later reads what is due from the disk.
        this.failed = true
        this.told.length = 0
        this.loading = undefined
        throw reason
      },
    )
    return this.loading
  }
}

/** What a call of a closed handle rejects with, as everywhere (`layout/connection.ts`). */
const closedError = () => new TtlError('CLOSED', 'the database handle was closed')
