/**
 * The round's wait budget (`maxWaitMs`) over the SDK's own waits. A client built as the docs
 * build it retries 429s (and dropped connections, and 5xx where it can fail over) on its own,
 * inside one call, for up to 30 s; the mirror's back-off (`remote.ts`) sees none of it. So every
 * call the mirror makes through its container (reads, writes, bulk requests, query pages) gets
 * an `abortSignal`, and is given up once it has run for what is left of the round's budget (or
 * {@link REQUEST_MS}, whichever is longer): the SDK stops at its next attempt, the round ends with
 * {@link WaitLimitError}. A call that ends after the SDK waited has that wait (its
 * `x-ms-throttle-retry-wait-time-ms`) taken from the budget.
 */
import type { Container } from '@azure/cosmos'
import type { RetryOptions } from './remote.js'

/** The longest a request is taken to need by itself, ms: the least a call is given, whatever is left. */
const REQUEST_MS = 1000

/** A call of the round ran past what was left of `maxWaitMs`: the SDK was still waiting on its own retries. */
export class WaitLimitError extends Error {
  constructor(ms: number) {
    super(`the round's maxWaitMs ran out: a request was still unanswered after ${ms} ms (the SDK waiting on its own retries, or the network)`)
    this.name = 'WaitLimitError'
  }
}

/** Where each method takes its request options: the index of that argument. */
const OPTIONS_AT: Record<string, number> = { read: 0, delete: 0, create: 1, upsert: 1, replace: 1, query: 1, bulk: 2 }

/** `container` as the mirror calls it: every call bounded by `budget` (see the module's doc). */
export function withinBudget(container: Container, budget: RetryOptions): Container {
  return wrap(container, budget)
}

/**
 * `target` (the container, its items, an item, a query's pages) with its calls bounded; a
 * query's pages by `query`, the abort of the query they belong to.
 */
function wrap<T extends object>(target: T, budget: RetryOptions, query?: AbortController): T {
  return new Proxy(target, {
    get(object, name) {
      const value = Reflect.get(object, name) as unknown
      if (name === 'items') return wrap(value as object, budget)
      if (typeof value !== 'function' || typeof name !== 'string') return value
      const method = value as (...args: unknown[]) => unknown
      if (name === 'item') return (...args: unknown[]) => wrap(method.apply(object, args) as object, budget)
      if (query && (name === 'fetchNext' || name === 'fetchAll')) return () => bounded(() => method.apply(object) as Promise<unknown>, budget, query)
      const at = OPTIONS_AT[name]
      if (at === undefined) return method.bind(object)
      return (...args: unknown[]) => {
        // Each call its own abort: one given up leaves the others of the round (side by side) to end as they do.
        const abort = new AbortController()
        const withSignal = Object.assign([], args, { [at]: { ...(args[at] as object | undefined), abortSignal: abort.signal } }) as unknown[]
        // A query's pages are bounded each, as they are fetched.
        if (name === 'query') return wrap(method.apply(object, withSignal) as object, budget, abort)
        return bounded(() => method.apply(object, withSignal) as Promise<unknown>, budget, abort)
      }
    },
  })
}

/** Runs `call`, given up (`abort` aborted) once it has run for what is left of the budget. */
async function bounded<T>(call: () => Promise<T>, budget: RetryOptions, abort: AbortController): Promise<T> {
  const ms = Math.max(budget.maxWaitMs - budget.waitedMs, REQUEST_MS)
  let timer: ReturnType<typeof setTimeout> | undefined
  const ranOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      budget.waitedMs = Math.max(budget.waitedMs, budget.maxWaitMs)
      abort.abort()
      reject(new WaitLimitError(ms))
    }, ms)
  })
  const running = call()
  // Given up, the call's own end (the SDK's abort) is no one's to hear.
  running.catch(() => {})
  // What the SDK waited inside the call, as its answer (or its error) says.
  const charge = (answer: unknown) => {
    const waited = Number((answer as { headers?: Record<string, unknown> } | undefined)?.headers?.['x-ms-throttle-retry-wait-time-ms'])
    if (waited > 0) budget.waitedMs += waited
  }
  try {
    const result = await Promise.race([running, ranOut])
    charge(result)
    return result
  } catch (error) {
    if (!(error instanceof WaitLimitError)) charge(error)
    throw error
  } finally {
    clearTimeout(timer)
  }
}
