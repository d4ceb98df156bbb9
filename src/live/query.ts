/**
 * A live query (SPEC §11): what `db.live` returns. Its subscribers share one reading: it is read
 * when the first subscribes, again when a store it reads changes (in any realm, `notices.ts`) or
 * its first item expires (`follow.ts`, which the page entries load at a handle's first
 * subscription, issue #44), and emitted only when the result differs. After the last
 * unsubscribe it holds nothing: no timer, no place on the bus, no lock.
 *
 * It speaks the subscribe contracts others accept: a function (Svelte stores), an observer and
 * `Symbol.observable` (RxJS `from()`), `getSnapshot` (React's `useSyncExternalStore`), and async
 * iteration.
 */
import { kindOf, TtlError } from '../rules/errors.js'
import type { Follow } from './follow.js'
import { hearChanges } from './notices.js'
import type { LiveResult } from './result.js'

/** What a live query calls: `next` with each new result, `error` once if a reading fails, `complete` once when the handle closes. */
export interface LiveObserver<T> {
  next?(items: T[]): void
  error?(error: unknown): void
  complete?(): void
}

/** Ends a subscription; calling it again does nothing. Also callable as `unsubscribe()`, as an RxJS subscription is. */
export interface Unsubscribe {
  (): void
  unsubscribe(): void
}

/** @internal What a live query reads, and the handle it belongs to. */
export interface LiveSource {
  dbName: string
  store: string
  clock: () => number
  read(): Promise<LiveResult>
  /** Keeps the query while it runs; the handle's close() completes it. */
  owner: { closed: boolean; add(query: LiveQuery<unknown>): void; delete(query: LiveQuery<unknown>): void }
  /** What follows a subscribed query (`follow.ts`), as the entry loads it. */
  follow: () => Promise<{ Follow: typeof Follow }>
}

interface Sink<T> extends LiveObserver<T> {
  /** It has had a result: an unchanged reading is not sent to it again. */
  primed: boolean
}

const observableSymbol = (Symbol as { observable?: symbol }).observable

/** The live items of a store or an index range, emitted at once and again whenever they change (docs/live-queries.md). */
export class LiveQuery<T> {
  private readonly sinks = new Set<Sink<T>>()
  private snapshot: T[] | undefined
  private signature: string | undefined
  /** Subscribed, and the snapshot is the latest reading. */
  private fresh = false
  /** Subscribed: followed once `follow.ts` is loaded. */
  private started = false
  private following: Follow | undefined
  /** Changes when the query stops: a follow loaded for a stretch that ended is not started. */
  private run = 0

  /** @internal Use `db.live`. */
  constructor(private readonly source: LiveSource) {
    // Called unbound by useSyncExternalStore and by Svelte.
    this.subscribe = this.subscribe.bind(this)
    this.getSnapshot = this.getSnapshot.bind(this)
    if (observableSymbol) Object.defineProperty(this, observableSymbol, { value: () => this })
  }

  /**
   * Calls `listener` (a function, or an observer's `next`) with the live items at once (as soon as
   * they are read, or synchronously when this query already holds them), then whenever they change.
   * A failed reading goes to the observer's `error` and ends the subscription.
   * @throws TtlError `INVALID_OPTION` for a listener that is neither a function nor an object
   */
  subscribe(listener: ((items: T[]) => void) | LiveObserver<T>): Unsubscribe {
    const sink = toSink(listener)
    let off = () => {}
    if (this.source.owner.closed) sink.complete?.()
    else {
      this.sinks.add(sink)
      if (!this.started) this.start()
      else if (this.fresh && this.snapshot) this.send(sink, this.snapshot)
      off = () => this.drop(sink)
    }
    const unsubscribe = () => off()
    return Object.assign(unsubscribe, { unsubscribe })
  }

  /**
   * The latest result, the same array until the result changes; `undefined` before the first
   * reading. With `subscribe`, what React's `useSyncExternalStore` takes.
   */
  getSnapshot(): T[] | undefined {
    return this.snapshot
  }

  /** The results as an async iterator; a result is skipped when a newer one came before the loop asked. */
  [Symbol.asyncIterator](): AsyncIterableIterator<T[]> {
    return iterate(this)
  }

  /** The interop observable RxJS `from()` looks for (`Symbol.observable`, where defined, gives the same). */
  ['@@observable'](): this {
    return this
  }

  /** @internal The handle closed: completes every subscriber and stops. */
  close(): void {
    const sinks = [...this.sinks]
    this.sinks.clear()
    this.stop()
    for (const sink of sinks) call(() => sink.complete?.())
  }

  private start(): void {
    const { owner, follow } = this.source
    const run = this.run
    owner.add(this as LiveQuery<unknown>)
    this.started = true
    // What changes while it loads, the first reading, which starts after, sees.
    follow().then(
      ({ Follow }) => void (run === this.run && (this.following = new Follow({ ...this.source, hearChanges }, this))),
      (error: unknown) => run === this.run && this.fail(error),
    )
  }

  private stop(): void {
    this.source.owner.delete(this as LiveQuery<unknown>)
    this.following?.stop()
    this.following = undefined
    this.fresh = this.started = false
    this.run++
  }

  private drop(sink: Sink<T>): void {
    if (this.sinks.delete(sink) && this.sinks.size === 0) this.stop()
  }

  /** @internal A reading (`follow.ts`): emitted to every subscriber if it differs, and to those that have had none. */
  result(result: LiveResult): void {
    this.fresh = true
    const changed = result.signature !== this.signature
    if (changed) {
      this.signature = result.signature
      this.snapshot = result.items as T[]
    }
    for (const sink of [...this.sinks]) if (changed || !sink.primed) this.send(sink, this.snapshot!)
  }

  private send(sink: Sink<T>, items: T[]): void {
    sink.primed = true
    call(() => sink.next?.(items))
  }

  /** @internal A reading failed, or `follow.ts` did not load: every subscriber is told, and the query stops. */
  fail(error: unknown): void {
    const sinks = [...this.sinks]
    this.sinks.clear()
    this.stop()
    for (const sink of sinks) {
      if (sink.error) call(() => sink.error!(error))
      else report(error)
    }
  }
}

function toSink<T>(listener: ((items: T[]) => void) | LiveObserver<T>): Sink<T> {
  if (typeof listener === 'function') return { next: listener, primed: false }
  if (listener !== null && typeof listener === 'object') {
    const observer = listener
    return {
      next: observer.next && ((items) => observer.next!(items)),
      error: observer.error && ((error) => observer.error!(error)),
      complete: observer.complete && (() => observer.complete!()),
      primed: false,
    }
  }
  throw new TtlError('INVALID_OPTION', `subscribe needs a function or an observer ({ next, error, complete }); got ${kindOf(listener)}`)
}

/** A subscriber's error is its own: it neither stops the others nor the query, and surfaces as an event listener's would. */
function call(run: () => void): void {
  try {
    run()
  } catch (error) {
    report(error)
  }
}

function report(error: unknown): void {
  queueMicrotask(() => {
    throw error
  })
}

/** One subscription read as an async iterator, holding only the latest result not yet taken. */
function iterate<T>(query: LiveQuery<T>): AsyncIterableIterator<T[]> {
  let latest: { items: T[] } | undefined
  let failure: { error: unknown } | undefined
  let done = false
  let waiting: { resolve(result: IteratorResult<T[]>): void; reject(error: unknown): void } | undefined
  let off: Unsubscribe | undefined
  const settle = () => {
    const waiter = waiting
    if (!waiter) return
    if (latest) {
      waiting = undefined
      waiter.resolve({ value: latest.items, done: false })
      latest = undefined
    } else if (failure) {
      waiting = undefined
      const { error } = failure
      failure = undefined
      waiter.reject(error)
    } else if (done) {
      waiting = undefined
      waiter.resolve({ value: undefined, done: true })
    }
  }
  const finish = () => {
    done = true
    off?.()
    settle()
  }
  const iterator: AsyncIterableIterator<T[]> = {
    next() {
      if (!off && !done) {
        off = query.subscribe({
          next: (items) => void ((latest = { items }), settle()),
          error: (error) => void ((failure = { error }), (done = true), settle()),
          complete: finish,
        })
      }
      if (done && !latest && !failure) return Promise.resolve({ value: undefined, done: true })
      const next = new Promise<IteratorResult<T[]>>((resolve, reject) => (waiting = { resolve, reject }))
      settle()
      return next
    },
    return() {
      latest = undefined
      finish()
      return Promise.resolve({ value: undefined, done: true })
    },
    [Symbol.asyncIterator]() {
      return iterator
    },
  }
  return iterator
}
