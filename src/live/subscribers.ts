/**
 * What a live query (`query.ts`) hands its subscribers to once the page entries loaded it (at its
 * first subscription, issue #44): they share one reading, read when the first subscribes and
 * again when `follow.ts` says so, and are sent a result only when it differs. After the last
 * unsubscribe it holds nothing: no timer, no place on the bus, no lock. Also the query's async
 * iteration ({@link iterate}).
 */
import { Follow } from './follow.js'
import type { LiveObserver, LiveSource, Subscribers as Running, Unsubscribe } from './query.js'
import { call, failed } from './report.js'
import { hearChanges } from './hearing.js'
import { readLive, type LiveResult } from './result.js'

interface Sink<T> extends LiveObserver<T> {
  /** It has had a result: an unchanged reading is not sent to it again. */
  primed: boolean
}

/** A live query's subscribers, and while there are some, the {@link Follow} that reads for them. */
export class Subscribers<T> implements Running<T> {
  private readonly sinks = new Set<Sink<T>>()
  private snapshot: T[] | undefined
  private signature: string | undefined
  /** Subscribed, and the snapshot is the latest reading. */
  private fresh = false
  private following: Follow | undefined

  constructor(private readonly source: LiveSource) {}

  /** `LiveQuery.subscribe` once loaded: `listener` is a function or an object (the query checked). */
  subscribe(listener: ((items: T[]) => void) | LiveObserver<T>): Unsubscribe {
    const sink = toSink(listener)
    let off = () => {}
    if (this.source.owner.closed) sink.complete?.()
    else {
      this.sinks.add(sink)
      if (!this.following) this.start()
      else if (this.fresh && this.snapshot) this.send(sink, this.snapshot)
      off = () => this.drop(sink)
    }
    const unsubscribe = () => off()
    return Object.assign(unsubscribe, { unsubscribe })
  }

  getSnapshot(): T[] | undefined {
    return this.snapshot
  }

  /** The handle closed: completes every subscriber and stops. */
  close(): void {
    const sinks = [...this.sinks]
    this.sinks.clear()
    this.stop()
    for (const sink of sinks) call(() => sink.complete?.())
  }

  private start(): void {
    const { dbName, store, clock, connect, options, reading, realm, owner } = this.source
    owner.add(this)
    const read = async () => readLive(await connect(), store, clock, options, reading, realm)
    this.following = new Follow({ dbName, store, clock, read, hearChanges: (db, hear) => hearChanges(realm.hearing, db, hear) }, this)
  }

  private stop(): void {
    this.source.owner.delete(this)
    this.following?.stop()
    this.following = undefined
    this.fresh = false
  }

  private drop(sink: Sink<T>): void {
    if (this.sinks.delete(sink) && this.sinks.size === 0) this.stop()
  }

  /** A reading (`follow.ts`): sent to every subscriber if it differs, and to those that have had none. */
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

  /** A reading failed: every subscriber is told, and the query stops. */
  fail(error: unknown): void {
    const sinks = [...this.sinks]
    this.sinks.clear()
    this.stop()
    for (const sink of sinks) failed(sink, error)
  }
}

function toSink<T>(listener: ((items: T[]) => void) | LiveObserver<T>): Sink<T> {
  if (typeof listener === 'function') return { next: listener, primed: false }
  const observer = listener
  return {
    next: observer.next && ((items) => observer.next!(items)),
    error: observer.error && ((error) => observer.error!(error)),
    complete: observer.complete && (() => observer.complete!()),
    primed: false,
  }
}

/** One subscription read as an async iterator, holding only the latest result not yet taken. */
export function iterate<T>(query: { subscribe(observer: LiveObserver<T>): Unsubscribe }): AsyncIterableIterator<T[]> {
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
