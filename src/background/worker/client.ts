/**
 * Page side of the purge worker: starts it lazily, wraps it with Comlink, and restarts it on the
 * next call after it crashed, was terminated or stopped answering. Pending calls of a dead worker
 * reject; once closed, it never starts a worker again.
 *
 * A worker that cannot start at all (its script is a 404 because the app's bundler did not ship
 * it, a CSP forbids it, there is no `Worker`) is not retried: given an inline purger, the client
 * hands every call to it from then on (see {@link WorkerPurger.unavailable}; `start.ts` says so
 * once on the console).
 *
 * A worker is never terminated with a transaction open if it can help it: it is asked to abort
 * what it has open and close its connection first (see {@link WorkerPurger.stop}). WebKitGTK 2.50
 * sometimes keeps a read-write transaction of a terminated worker open for good: every later
 * request on its stores then waits forever, in every tab.
 */
import { proxy, releaseProxy, wrap, type Remote } from 'comlink'
import { QUIET_MS } from '../courtesy.js'
import { TtlError } from '../../rules/errors.js'
import { READY, type PurgeApi, type PurgeConfig, type WorkerApi } from './api.js'
import type { PurgeClock } from '../../purge/purge.js'

/**
 * A call (a background slice or a `purgeExpired`) that has not answered in this long makes the
 * page ping the worker, and so on every such period. A worker that does not answer the ping
 * (within {@link PING_MS}) died without an `error` event (killed by the browser, say); one that
 * answers but has committed no transaction since the last ping, a whole period ago, is stuck
 * (waiting on a transaction that never ends, say). Either is stopped, the call fails, and the
 * next call starts a fresh worker. A slice spends about `sliceMs` per store plus a batch and a
 * pause, and a batch takes a few seconds at worst (300 deletes in WebKit's in-memory IndexedDB):
 * a long `purgeExpired`, and a slice waiting behind it, go on as long as batches commit.
 */
export const WATCHDOG_MS = 30_000

/** How long a worker suspected dead has to answer a ping. */
const PING_MS = 1_000

/** How long the worker may take to close its connection before it is terminated anyway. */
const CLOSE_WAIT_MS = 1_000

/** What `promise` settles to, or `undefined` once `ms` have passed without that. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<undefined>((resolve) => setTimeout(resolve, ms))])

/** Has the worker close its connection (aborting what it has open), waiting at most {@link CLOSE_WAIT_MS}. */
const closeWithin = (remote: Remote<WorkerApi>) => within(remote.close(), CLOSE_WAIT_MS).catch(() => {})

/** Why a worker that never ran could not start. */
const cannotStart = (url: string | undefined, cause: string) =>
  Object.assign(new Error(`the purge worker could not be started from ${url ?? 'its URL'}: ${cause}`), { name: 'PurgeWorkerError' })

/**
 * Runs `create`, a `new Worker(new URL('…', import.meta.url), …)`, and notes the script URL the
 * browser was given. Bundlers recognise the worker only in that literal form and rewrite the URL
 * inside it (webpack, Vite), so it exists nowhere else: for the moment of the call, the global
 * `Worker` is a proxy that notes its first argument. `url` stays undefined where `Worker` cannot
 * be replaced. Where `create` throws (no `Worker`; one refused at once: a CSP in some engines, a
 * bad URL), so does this, with a `PurgeWorkerError` that says so.
 */
function noteUrl(create: () => Worker): { worker: Worker; url: string | undefined } {
  const g = globalThis as { Worker?: typeof Worker }
  const original = g.Worker
  let url: string | undefined
  try {
    if (typeof original === 'function') {
      g.Worker = new Proxy(original, {
        construct(target, args) {
          url = String(args[0])
          return Reflect.construct(target, args)
        },
      })
    }
  } catch {
    // A frozen global: the worker starts all the same, only its URL is not known.
  }
  try {
    return { worker: create(), url }
  } catch (error) {
    throw cannotStart(url, error instanceof Error ? `${error.name}: ${error.message}` : String(error))
  } finally {
    if (g.Worker !== original) g.Worker = original
  }
}

/** What a worker whose script did load reported when it failed (an `ErrorEvent` carries its message and place). */
function crashed(url: string | undefined, event: Event): Error {
  const { message, filename, lineno } = event as Partial<ErrorEvent>
  const where = filename ? ` (${filename}${lineno ? `:${lineno}` : ''})` : ''
  return new Error(`the purge worker${url ? ` from ${url}` : ''} failed: ${message || 'an error event with no message'}${where}`)
}

export class WorkerPurger implements PurgeApi {
  private worker: Worker | undefined
  private remote: Remote<WorkerApi> | undefined
  private died: Promise<never> | undefined
  private kill: ((reason: Error) => void) | undefined
  private activity: MessagePort | undefined
  private lastSignal = 0
  private closed = false
  /** A failed worker being stopped: calls wait for it to be gone, then start a fresh one. */
  private stopping: Promise<void> | undefined
  /** The inline purger every call goes to once a worker could not start (see {@link unavailable}). */
  private inline: PurgeApi | undefined
  /** Why the worker could not start: the error its pending calls were ended with, to run them inline. */
  private notStarted: Error | undefined

  /**
   * `watchdogMs`: the watchdog's period, {@link WATCHDOG_MS} unless a test says otherwise.
   * `fallback`: makes the inline purger (the one `purge: { mode: 'inline' }` runs) that takes
   * over when the worker cannot start, given the `PurgeWorkerError` that says why; without it such
   * calls fail with that error.
   */
  constructor(
    private readonly config: PurgeConfig,
    private readonly watchdogMs = WATCHDOG_MS,
    private readonly fallback?: (reason: Error) => PurgeApi,
  ) {}

  private start(): { remote: Remote<WorkerApi>; died: Promise<never> } {
    if (!this.worker || !this.remote || !this.died) {
      // The name is a file name too: webpack names the worker's chunk after it.
      const { worker, url } = noteUrl(
        () => new Worker(new URL('./purge-worker.ts', import.meta.url), { type: 'module', name: 'idb-ttl-purge' }),
      )
      let ready = false
      worker.addEventListener('message', (event) => void (event.data === READY && (ready = true)))
      const channel = new MessageChannel()
      worker.postMessage(this.config, [channel.port2])
      this.activity = channel.port1
      this.died = new Promise<never>((_, reject) => (this.kill = reject))
      this.died.catch(() => {})
      worker.addEventListener('error', (event) => {
        event.preventDefault()
        if (this.worker !== worker) return
        if (ready) this.stop(crashed(url, event))
        // No script ran (a load failure is a bare `Event`, no message): nothing to close.
        else this.unavailable(cannotStart(url, 'its script did not load (a 404, a Content-Security-Policy without worker-src for it, or not served as JavaScript)'))
      })
      this.worker = worker
      this.remote = wrap<WorkerApi>(worker)
    }
    return { remote: this.remote, died: this.died }
  }

  private call<T>(run: (api: PurgeApi) => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new TtlError('CLOSED', 'the database handle was closed'))
    if (this.inline) return run(this.inline)
    if (this.stopping) return this.stopping.then(() => this.call(run))
    let started: ReturnType<WorkerPurger['start']>
    try {
      started = this.start()
    } catch (error) {
      // No `Worker` here, or one refused at once (see noteUrl).
      const reason = error instanceof Error ? error : new Error(String(error))
      this.unavailable(reason)
      return this.inline ? this.call(run) : Promise.reject(reason)
    }
    const { remote, died } = started
    // While a failed worker is being stopped, its calls fail with why it is stopped, not with
    // the aborts and CLOSED errors its own shutdown causes.
    const failure = (error: unknown) => (this.stopping && this.remote === remote ? died : Promise.reject(error))
    // A worker that could not start hands its calls to the inline purger.
    const notStarted = (error: unknown) => (error === this.notStarted && this.inline && !this.closed ? run(this.inline) : Promise.reject(error))
    const result = Promise.race([run(remote as unknown as PurgeApi).catch(failure), died]).catch(notStarted)
    let settled = false
    let watchdog: ReturnType<typeof setTimeout>
    // What the worker had committed at the last ping: the first ping only sets it, so a stuck
    // worker goes after two periods, one with no progress.
    let progress: number | undefined
    const ended = () => settled || this.remote !== remote
    const watch = () =>
      (watchdog = setTimeout(async () => {
        if (ended()) return
        const pong = Promise.resolve()
          .then(() => remote.ping())
          .catch(() => undefined)
        const committed = await within(pong, PING_MS)
        if (ended()) return
        if (committed === undefined) {
          this.stop(new Error(`purge worker did not answer in ${this.watchdogMs} ms, nor a ping in ${PING_MS} ms`))
        } else if (committed === progress) {
          this.stop(new Error(`purge worker answers pings but committed nothing in ${this.watchdogMs} ms`))
        } else {
          progress = committed
          watch()
        }
      }, this.watchdogMs))
    watch()
    return result.finally(() => {
      settled = true
      clearTimeout(watchdog)
    })
  }

  /** Tells a running worker that a user request is starting, at most once per quiet period. */
  noteActivity(): void {
    const now = performance.now()
    if (!this.activity || now - this.lastSignal < QUIET_MS / 2) return
    this.lastSignal = now
    this.activity.postMessage(0)
  }

  slice(clock: PurgeClock) {
    // A function crosses to the worker as a proxy: each batch there asks the page for the time.
    return this.call((remote) => remote.slice(typeof clock === 'number' ? clock : proxy(clock)))
  }

  purgeAll(stores: string[], nowMs: number, stale?: boolean) {
    return this.call((remote) => remote.purgeAll(stores, nowMs, stale))
  }

  /** Ends the worker at once; a batch it was running rolls back (each is one transaction). */
  terminate(reason = new Error('purge worker terminated')): void {
    this.end(Object.assign(reason, { name: 'PurgeWorkerError' }))
  }

  /**
   * The worker could not start: its script never ran, so there is nothing to close. It is ended at
   * once; with a fallback, its pending calls and every later one run inline (the fallback, made
   * once, says so: `start.ts`). Without one, they fail with `reason`.
   */
  private unavailable(reason: Error): void {
    if (this.fallback && !this.inline && !this.closed) {
      this.inline = this.fallback(reason)
      this.notStarted = reason
    }
    this.terminate(reason)
  }

  /**
   * Ends a worker that failed (an `error` event, or no answer in time): it aborts the batch it
   * was running and closes its connection, and only then is terminated (at most
   * {@link CLOSE_WAIT_MS} later, if it does not answer); its pending calls then reject with
   * `reason`. Terminated with a transaction open, it could leave that transaction open for good
   * in WebKit (see the top of this file).
   */
  private stop(reason: Error): void {
    const remote = this.remote
    if (this.stopping || !remote) return
    this.stopping = closeWithin(remote).then(() => {
      this.stopping = undefined
      if (this.remote === remote) this.terminate(reason)
    })
  }

  /** Ends the worker; its pending calls reject with `error`. */
  private end(error: Error): void {
    this.remote?.[releaseProxy]()
    this.worker?.terminate()
    this.activity?.close()
    this.kill?.(error)
    this.worker = this.remote = this.died = this.kill = this.activity = undefined
  }

  /**
   * Ends the worker for good: pending and later calls reject with TtlError `CLOSED`. The worker
   * aborts its open transactions and closes its connection before it is terminated: WebKit keeps
   * a terminated worker's connection open for a long while, and a `deleteDatabase` or an upgrade
   * would wait for it (and a transaction left open, for good: see the top of this file).
   */
  async close(): Promise<void> {
    this.closed = true
    const remote = this.remote
    const ended = new TtlError('CLOSED', 'the database handle was closed')
    // Pending calls fail now; the worker itself goes once its connection is closed (or it is stuck).
    this.kill?.(ended)
    if (remote) await closeWithin(remote)
    this.end(ended)
    await this.inline?.close()
  }
}
