/**
 * One subscription to `db.live(store, options)`, `db` a handle or a promise of one: what each
 * binding starts when it is used and ends when it is not.
 */
import type { TtlDB } from '../index.js'
import type { LiveHandle } from './types.js'

/**
 * Subscribes to `db.live(store, options)` (once `db` resolves, if it is a promise): `next` gets each
 * result, `fail` a failed open, a refused query or a failed reading. Returns what ends it; ended
 * before the promise settled, it never subscribes, and a failed open is not reported. With `stale`,
 * `next` gets instead `db.getAllStale(store, options.query)`, read again at each result of the live
 * query: an item expiring makes it emit, and so moves from one list to the other at that instant.
 * @throws TtlError from `db.live` itself (`UNKNOWN_STORE`, `INVALID_OPTION`, `CLOSED`) when `db` is a handle
 */
export function follow<T>(
  db: LiveHandle<any>,
  store: string,
  options: { query?: any } | undefined,
  next: (items: T[]) => void,
  fail: (error: unknown) => void,
  stale?: boolean,
): () => void {
  let ended = false
  let off: (() => void) | undefined
  let reads = 0
  const start = (handle: TtlDB<any>) => {
    // Each result starts a stale read; only the latest one started is given (reads may settle out of order).
    const reread = () => {
      const read = ++reads
      handle.getAllStale(store, options?.query).then((items) => ended || read !== reads || next(items as T[]), (error) => ended || fail(error))
    }
    if (!ended) off = handle.live(store, options).subscribe({ next: stale ? reread : (next as (items: unknown[]) => void), error: fail })
  }
  if (typeof (db as PromiseLike<TtlDB<any>>).then === 'function') {
    // Ended first (a server render subscribes and unsubscribes at once), a failed open is nobody's.
    const failed = (error: unknown) => ended || fail(error)
    ;(db as PromiseLike<TtlDB<any>>).then((handle) => {
      try {
        start(handle)
      } catch (error) {
        failed(error)
      }
    }, failed)
  } else start(db as TtlDB<any>)
  return () => {
    ended = true
    off?.()
  }
}

/** An error no caller waits for surfaces as an event listener's would (a live query's own does the same). */
export function report(error: unknown): void {
  queueMicrotask(() => {
    throw error
  })
}
