/**
 * Calls to the server, each retried as the server asks: after a 429 (request rate too large) it
 * waits the `x-ms-retry-after-ms` the server sent; after another transient answer (408 timeout,
 * 410 gone, 449 retry with, 503 and every other 5xx) it backs off, doubling from `backoffMs`, at
 * most `maxRetries` times. Every wait of a round comes out of one budget, `maxWaitMs`: a wait
 * that would overrun it is not begun, and the call fails with the answer that asked for it (the
 * round ends, its Web Lock released, the outbox kept). No network (a refused connection, a DNS
 * failure, a browser offline) is {@link OfflineError}: nothing to wait for, the round ends. The
 * SDK has retries of its own; these come on top, once it gives up, and its waits come out of the
 * same budget (`budget.ts`).
 */

/** The server could not be reached: the round ends, the outbox waits. */
export class OfflineError extends Error {
  constructor(readonly cause: unknown) {
    super(`the server could not be reached: ${(cause as Error | undefined)?.message ?? String(cause)}`)
    this.name = 'OfflineError'
  }
}

/** Most 429s waited out in one call: a server that throttles for ever ends the round at last. */
const MAX_THROTTLED = 100
/** Longest single wait after a 429 or a 5xx, in ms: the user is waiting for the status. */
const MAX_WAIT_MS = 30_000

export interface RetryOptions {
  maxRetries: number
  backoffMs: number
  /**
   * What the round's waits may add up to, in ms; what they have come to so far (`waitedMs`: the
   * time some call of the round was waiting, waits side by side counted once), and until when
   * (`performance.now()`) the last one runs.
   */
  maxWaitMs: number
  waitedMs: number
  waitingUntil?: number
  /** How to wait; tests may count. */
  sleep?: (ms: number) => Promise<void>
}

/** Answers that say "not now": the same request may succeed later. 429 is apart (the server says when). */
function isTransient(status: number | undefined): boolean {
  return status === 408 || status === 410 || status === 449 || (status !== undefined && status >= 500)
}

/** The HTTP status of an SDK error, or `undefined` for one that has none (no response at all). */
export function statusOf(error: unknown): number | undefined {
  const code = (error as { code?: unknown; statusCode?: unknown } | null)?.code ?? (error as { statusCode?: unknown } | null)?.statusCode
  return typeof code === 'number' ? code : undefined
}

function isOffline(error: unknown): boolean {
  if (typeof navigator !== 'undefined' && navigator.onLine === false) return true
  if (statusOf(error) !== undefined) return false
  // A response always has a status; without one the request never reached the server: the SDK's
  // RestError with a system code (ECONNREFUSED, ENOTFOUND), a timeout, fetch's TypeError. A
  // TtlError (a local write of the round refused: a bad item, a full disk) is not the network.
  const { name = '', message = '', code } = (error ?? {}) as { name?: string; message?: string; code?: unknown }
  if (name === 'TtlError') return false
  return typeof code === 'string' || /^(RestError|TimeoutError|AbortError)$/.test(name) || (name === 'TypeError' && /fetch|network|load failed/i.test(message))
}

function retryAfterMs(error: unknown): number | undefined {
  const e = error as { retryAfterInMs?: number; retryAfterInMilliseconds?: number; headers?: Record<string, unknown> }
  const header = Number(e.headers?.['x-ms-retry-after-ms'])
  const ms = e.retryAfterInMs ?? e.retryAfterInMilliseconds ?? (Number.isFinite(header) ? header : undefined)
  return typeof ms === 'number' && ms >= 0 ? ms : undefined
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Runs `call` until it succeeds or fails for good.
 * @throws {@link OfflineError} without a network; the call's own error otherwise (a refusal, or a
 * transient answer after `maxRetries`, or once the round's `maxWaitMs` would be overrun)
 */
export async function withRetry<T>(call: () => Promise<T>, options: RetryOptions): Promise<T> {
  const sleep = options.sleep ?? sleepFor
  let failures = 0
  let throttled = 0
  for (;;) {
    if (typeof navigator !== 'undefined' && navigator.onLine === false) throw new OfflineError(new Error('the browser is offline'))
    try {
      return await call()
    } catch (error) {
      const status = statusOf(error)
      let wait: number | undefined
      if (status === 429 && throttled++ < MAX_THROTTLED) wait = Math.min(retryAfterMs(error) ?? options.backoffMs, MAX_WAIT_MS)
      else if (isTransient(status) && failures < options.maxRetries) {
        const ms = Math.min(options.backoffMs * 2 ** failures++, MAX_WAIT_MS)
        // Jitter: tabs and devices that failed together do not come back together.
        wait = ms / 2 + Math.random() * (ms / 2)
      }
      if (wait !== undefined) {
        const now = performance.now()
        const added = Math.max(0, now + wait - Math.max(now, options.waitingUntil ?? 0))
        if (options.waitedMs + added <= options.maxWaitMs) {
          options.waitedMs += added
          options.waitingUntil = Math.max(options.waitingUntil ?? 0, now + wait)
          await sleep(wait)
          continue
        }
      }
      if (isOffline(error)) throw new OfflineError(error)
      throw error
    }
  }
}
