/**
 * Stand-ins for the browser pieces the background purge depends on, so that Node (and Chromium,
 * where a real one would not misbehave on cue) can test what happens when they misbehave.
 */

import { READY } from '../../src/background/worker/api.js'

/**
 * Makes sure `navigator.locks` exists: Chromium has real Web Locks (shared by every handle of
 * the page, as across tabs); Node 20 has none, so this installs a stand-in that behaves as
 * browsers do where the library depends on it: a request is granted in a later task, never
 * inside `request()`; `'shared'` requests are held together, an `'exclusive'` one alone, in the
 * order they were asked for; `signal` withdraws a request not granted yet; `steal` takes the
 * lock from its holders, whose requests reject with `AbortError`; `query()` lists holders and
 * waiting requests with their modes. Returns a function that removes what it installed.
 */
export function ensureLocks(): () => void {
  const g = globalThis as { navigator?: { locks?: unknown } }
  if (g.navigator?.locks) return () => {}
  const locks = new StandInLocks()
  const hadNavigator = 'navigator' in g
  if (hadNavigator) Object.defineProperty(g.navigator, 'locks', { value: locks, configurable: true })
  else Object.defineProperty(g, 'navigator', { value: { locks }, configurable: true })
  return () => {
    if (hadNavigator) delete g.navigator!.locks
    else delete g.navigator
  }
}

/** A lock request of {@link StandInLocks}: asked for, then held, then let go. */
interface StandInRequest {
  name: string
  mode: LockMode
  callback: (lock: Lock | null) => unknown
  resolve(value: unknown): void
  reject(error: unknown): void
  /** Set once it no longer holds the lock (released, or stolen): its end must not let go of another's. */
  gone?: boolean
}

/** The Web Locks stand-in of {@link ensureLocks}. */
class StandInLocks {
  private readonly held = new Map<string, StandInRequest[]>()
  private readonly queues = new Map<string, StandInRequest[]>()

  request(name: string, ...args: [LockGrantedCallback<unknown>] | [LockOptions, LockGrantedCallback<unknown>]): Promise<unknown> {
    const [options, callback] = args.length === 1 ? [{} as LockOptions, args[0]] : args
    const { mode = 'exclusive', signal, steal = false, ifAvailable = false } = options
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason ?? new DOMException('the lock request was aborted', 'AbortError'))
      const request: StandInRequest = { name, mode, callback, resolve, reject }
      const queue = this.queues.get(name) ?? []
      this.queues.set(name, queue)
      if (steal) {
        for (const holder of this.held.get(name) ?? []) {
          holder.gone = true
          holder.reject(new DOMException("Lock broken by another request with the 'steal' option.", 'AbortError'))
        }
        this.held.set(name, [])
        queue.unshift(request)
      } else if (ifAvailable && !this.grantable(name, mode, queue.length)) {
        return void setTimeout(() => void Promise.resolve(callback(null)).then(resolve, reject), 0)
      } else {
        queue.push(request)
      }
      signal?.addEventListener('abort', () => {
        const at = queue.indexOf(request)
        if (at < 0) return
        queue.splice(at, 1)
        reject(signal.reason ?? new DOMException('the lock request was aborted', 'AbortError'))
        this.process(name)
      })
      this.process(name)
    })
  }

  async query(): Promise<LockManagerSnapshot> {
    const list = (map: Map<string, StandInRequest[]>) => [...map.values()].flat().map(({ name, mode }) => ({ name, mode, clientId: 'stand-in' }))
    return { held: list(this.held), pending: list(this.queues) }
  }

  /** Whether a `mode` request behind `ahead` others of `name`'s queue could be granted now. */
  private grantable(name: string, mode: LockMode, ahead: number): boolean {
    const holders = this.held.get(name) ?? []
    const queue = (this.queues.get(name) ?? []).slice(0, ahead)
    if (mode === 'exclusive') return holders.length === 0 && queue.length === 0
    return holders.every((h) => h.mode === 'shared') && queue.every((r) => r.mode === 'shared')
  }

  /** Grants, in a later task, what the queue of `name` lets hold now. */
  private process(name: string): void {
    const queue = this.queues.get(name) ?? []
    const holders = this.held.get(name) ?? []
    this.held.set(name, holders)
    while (queue.length > 0 && this.grantable(name, queue[0].mode, 0)) {
      const request = queue.shift()!
      holders.push(request)
      // In a later task, as browsers grant: never inside the caller's `request()`.
      setTimeout(() => {
        if (request.gone) return
        void (async () => request.callback({ name, mode: request.mode } as Lock))().then(
          (value) => this.end(request, () => request.resolve(value)),
          (error) => this.end(request, () => request.reject(error)),
        )
      }, 0)
    }
  }

  /** `request`'s callback settled: it lets the lock go (unless stolen from it) and hears how. */
  private end(request: StandInRequest, settle: () => void): void {
    if (!request.gone) {
      request.gone = true
      const holders = this.held.get(request.name) ?? []
      holders.splice(holders.indexOf(request), 1)
      settle()
      this.process(request.name)
    }
  }
}

/**
 * What a stub worker does once started: fail to start (`fail`: its script does not load, a 404 or
 * a CSP refusal: a bare `error` event, before the worker could say it is ready); start, then
 * crash at its first call (`crash`: an `ErrorEvent` with a message, as an uncaught error gives);
 * never answer; answer pings but commit nothing and answer no call (`stuck`); or answer pings with
 * a count of commits that has moved since the last one, and calls when the test answers them (`busy`).
 */
export type StubBehaviour = 'fail' | 'crash' | 'silent' | 'stuck' | 'busy'

/** A Comlink call as it reaches the worker. */
interface Call {
  id: string
  type: string
  path?: string[]
}

/**
 * Replaces `Worker` with a stub that records each instance, whether it was terminated, how many
 * pings it answered, and lets the test answer its pending calls by method (`answer`).
 * Returns the records and a function that puts the real `Worker` back.
 */
export function stubWorkers(behaviour: StubBehaviour) {
  const g = globalThis as { Worker?: unknown }
  const original = Object.getOwnPropertyDescriptor(g, 'Worker')
  const started: { at: number; terminated: boolean; pings: number; answer(method: string, value: unknown): void }[] = []
  class StubWorker extends EventTarget {
    private readonly pending: Call[] = []
    private readonly record = {
      at: performance.now(),
      terminated: false,
      pings: 0,
      answer: (method: string, value: unknown) => {
        for (const call of this.pending.filter((c) => c.path?.[0] === method)) this.reply(call, value)
      },
    }
    constructor() {
      super()
      started.push(this.record)
      setTimeout(() => {
        if (this.record.terminated) return
        if (behaviour === 'fail') this.dispatchEvent(new Event('error', { cancelable: true }))
        else if (behaviour !== 'silent') this.dispatchEvent(new MessageEvent('message', { data: READY }))
      }, 0)
    }
    postMessage(message: unknown): void {
      const call = message as Call
      if (behaviour === 'crash' && call.type === 'APPLY') {
        const crash = { message: 'Uncaught Error: stub worker crashed', filename: 'purge-worker.js', lineno: 1 }
        return void setTimeout(() => this.record.terminated || this.dispatchEvent(Object.assign(new Event('error', { cancelable: true }), crash)), 0)
      }
      if (behaviour === 'fail' || behaviour === 'silent' || call.type !== 'APPLY') return
      if (call.path?.[0] !== 'ping') return void this.pending.push(call)
      this.record.pings++
      this.reply(call, behaviour === 'busy' ? this.record.pings : 0)
    }
    private reply(call: Call, value: unknown): void {
      setTimeout(() => {
        if (!this.record.terminated) this.dispatchEvent(new MessageEvent('message', { data: { id: call.id, type: 'RAW', value } }))
      }, 0)
    }
    terminate(): void {
      this.record.terminated = true
    }
  }
  Object.defineProperty(g, 'Worker', { value: StubWorker, configurable: true, writable: true })
  return {
    started,
    restore() {
      if (original) Object.defineProperty(g, 'Worker', original)
      else delete g.Worker
    },
  }
}

/**
 * A page too busy ever to be idle: `requestIdleCallback` fires only when its timeout runs out.
 * Returns a function that puts the real one back (or removes the stub).
 */
export function neverIdle(): () => void {
  const g = globalThis as Record<string, unknown>
  const original = { request: g.requestIdleCallback, cancel: g.cancelIdleCallback }
  g.requestIdleCallback = (run: (deadline: IdleDeadline) => void, options?: IdleRequestOptions) =>
    setTimeout(() => run({ didTimeout: true, timeRemaining: () => 0 }), options?.timeout ?? 0)
  g.cancelIdleCallback = (id: ReturnType<typeof setTimeout>) => clearTimeout(id)
  return () => {
    if (original.request === undefined) delete g.requestIdleCallback
    else g.requestIdleCallback = original.request
    if (original.cancel === undefined) delete g.cancelIdleCallback
    else g.cancelIdleCallback = original.cancel
  }
}

/**
 * Wraps `navigator.locks` (real, or {@link ensureLocks}'s) so that the first `times` grants of
 * each lock whose name starts with `prefix` come to nothing, as Chromium does for a lock granted
 * while the page is inside `window.open`: the lock is granted, its callback is not run, and the
 * request rejects with a plain `Error`. Returns how many were refused so far, and a function that
 * puts `navigator.locks` back.
 */
export function refuseGrants(prefix: string, times = 1) {
  const nav = globalThis.navigator as Navigator & { locks: LockManager }
  const real = nav.locks
  const own = Object.getOwnPropertyDescriptor(nav, 'locks')
  const refusedOf = new Map<string, number>()
  const counts = { refused: 0 }
  const locks = {
    request(name: string, ...args: [LockGrantedCallback<unknown>] | [LockOptions, LockGrantedCallback<unknown>]) {
      const [options, callback] = args.length === 1 ? [{}, args[0]] : args
      const refused = refusedOf.get(name) ?? 0
      if (!name.startsWith(prefix) || refused >= times) return real.request(name, options, callback)
      refusedOf.set(name, refused + 1)
      counts.refused++
      return real.request(name, options, async () => {
        throw new Error("Failed to execute 'open' on 'Window': The provided callback is no longer runnable.")
      })
    },
    query: () => real.query(),
  }
  Object.defineProperty(nav, 'locks', { value: locks, configurable: true })
  return {
    counts,
    restore() {
      if (own) Object.defineProperty(nav, 'locks', own)
      else delete (nav as { locks?: unknown }).locks
    },
  }
}
