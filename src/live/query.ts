/**
 * A live query (SPEC §11): what `db.live` returns. Its subscribers share one reading: it is read
 * when the first subscribes, again when a store it reads changes (in any realm, `notices.ts`) or
 * its first item expires, and emitted only when the result differs. After the last unsubscribe it
 * holds nothing: no timer, no place on the bus, no lock.
 *
 * It speaks the subscribe contracts others accept: a function (Svelte stores), an observer and
 * `Symbol.observable` (RxJS `from()`), `getSnapshot` (React's `useSyncExternalStore`), and async
 * iteration. What runs them (`subscribers.ts`, `follow.ts`, `result.ts`) the page entries load at
 * its first subscription (issue #44); until then it keeps its subscribers, in order.
 */
import { kindOf, TtlError } from '../rules/errors.js'
import type { Reading } from '../reads/reads.js'
import type { Hearing } from './notices.js'
import { call, failed } from './report.js'
import type { LiveOptions, LiveReads } from './result.js'

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

/** @internal The realm's registries, handed to what loads later (`hub.ts` `liveRealm`). */
export interface LiveRealm extends LiveReads {
  hearing: Hearing
}

/** @internal What runs a query's subscribers once loaded (`subscribers.ts`). */
export interface Subscribers<T> {
  subscribe(listener: Listener<T>): Unsubscribe
  getSnapshot(): T[] | undefined
}

/** @internal What the page entries load at a handle's first subscription (`subscribers.ts`). */
export interface LiveWork {
  Subscribers: new <T>(source: LiveSource) => Subscribers<T>
  iterate<T>(query: { subscribe(observer: LiveObserver<T>): Unsubscribe }): AsyncIterableIterator<T[]>
}

/** @internal What a live query reads, and the handle it belongs to. */
export interface LiveSource {
  dbName: string
  store: string
  clock: () => number
  connect: () => Promise<IDBDatabase>
  options: LiveOptions
  /** The handle's reading of generations (a live query counts the touches owed, and makes none: `result.ts`). */
  reading: Pick<Required<Reading>, 'generations'>
  /** The realm's registries, handed to what loads later: whichever copy of it loads hears and reads in this realm. */
  realm: LiveRealm
  /** Keeps what runs while the handle is open; the handle's close() closes it. */
  owner: { closed: boolean; add(query: { close(): void }): void; delete(query: { close(): void }): void }
  /** What runs a subscribed query (`subscribers.ts`), as the entry loads it. */
  follow: () => Promise<LiveWork>
}

type Listener<T> = ((items: T[]) => void) | LiveObserver<T>

/** A subscription made before what runs the query was loaded. */
interface Waiting<T> {
  listener: Listener<T>
  handOver(subscribers: Subscribers<T>): void
}

const observableSymbol = (Symbol as { observable?: symbol }).observable
const done = () => Promise.resolve({ value: undefined, done: true as const })
/** An iterator that has ended: what iterating a query whose machinery did not load gives after the error. */
const ended = { next: done, return: done }

/** The live items of a store or an index range, emitted at once and again whenever they change (docs/live-queries.md). */
export class LiveQuery<T> {
  private subscribers: Subscribers<T> | undefined
  /** Subscribed before `subscribers.ts` was loaded, in order: each hands itself over once it is. */
  private readonly waiting = new Set<Waiting<T>>()
  private loading = false

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
    if (typeof listener !== 'function' && (listener === null || typeof listener !== 'object')) {
      throw new TtlError('INVALID_OPTION', `subscribe needs a function or an observer ({ next, error, complete }); got ${kindOf(listener)}`)
    }
    if (this.subscribers) return this.subscribers.subscribe(listener)
    const { owner } = this.source
    let off: () => void = () => void (this.waiting.delete(waiting) && this.waiting.size === 0 && owner.delete(this))
    const waiting: Waiting<T> = { listener, handOver: (subscribers) => void (off = subscribers.subscribe(listener)) }
    if (owner.closed) (listener as LiveObserver<T>).complete?.()
    else {
      this.waiting.add(waiting)
      owner.add(this)
      this.load()
    }
    const unsubscribe = () => off()
    return Object.assign(unsubscribe, { unsubscribe })
  }

  /**
   * The latest result, the same array until the result changes; `undefined` before the first
   * reading. With `subscribe`, what React's `useSyncExternalStore` takes.
   */
  getSnapshot(): T[] | undefined {
    return this.subscribers?.getSnapshot()
  }

  /** The results as an async iterator; a result is skipped when a newer one came before the loop asked. */
  [Symbol.asyncIterator](): AsyncIterableIterator<T[]> {
    let running: Promise<Pick<AsyncIterator<T[]>, 'next' | 'return'>> | undefined
    const step = (method: 'next' | 'return') =>
      (running ??= this.source.follow().then(
        (loaded) => loaded.iterate(this),
        (error: unknown) => {
          running = Promise.resolve(ended)
          throw error
        },
      )).then((iterator) => iterator[method]!())
    const iterator: AsyncIterableIterator<T[]> = { next: () => step('next'), return: () => step('return'), [Symbol.asyncIterator]: () => iterator }
    return iterator
  }

  /** The interop observable RxJS `from()` looks for (`Symbol.observable`, where defined, gives the same). */
  ['@@observable'](): this {
    return this
  }

  /** @internal The handle closed: completes every subscriber still waiting for what runs them. */
  close(): void {
    const waiting = [...this.waiting]
    this.waiting.clear()
    for (const { listener } of waiting) call(() => (listener as LiveObserver<T>).complete?.())
  }

  /** Loads what runs the query, once; hands every waiting subscriber to it, or tells them it did not load. */
  private load(): void {
    if (this.loading) return
    this.loading = true
    const settle = (each: (waiting: Waiting<T>) => void) => {
      this.loading = false
      const waiting = [...this.waiting]
      this.waiting.clear()
      this.source.owner.delete(this)
      waiting.forEach(each)
    }
    this.source.follow().then(
      ({ Subscribers }) => settle(({ handOver }) => handOver((this.subscribers ??= new Subscribers<T>(this.source)))),
      (error: unknown) => settle(({ listener }) => failed(listener as LiveObserver<T>, error)),
    )
  }
}
