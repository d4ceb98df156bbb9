/**
 * Whether the caller of the function that calls this came from `fromFile`: anywhere up its stack
 * (awaiting callers included), or with `directly` the nearest frame outside this file and
 * `whenIdle` (src/background/idle.ts, through which the scheduler asks for its idle callbacks)
 * alone: a timer set by what `fromFile` calls (the purge worker's watchdog, under a slice) is not
 * `fromFile`'s. V8
 * hands the call sites over unformatted: formatting `.stack` source-maps every frame, which costs
 * more than most of what a test under tracking does; other engines give the string.
 */
function calledFrom(fromFile: string, directly = false): boolean {
  const E = Error as ErrorConstructor & { prepareStackTrace?: (error: Error, sites: unknown[]) => unknown }
  const format = E.prepareStackTrace
  E.prepareStackTrace = (_error, sites) => sites
  try {
    const stack: unknown = new Error().stack
    const frames =
      typeof stack === 'string'
        ? stack.split('\n').filter((line) => /:\d+:\d+\)?$/.test(line))
        : (stack as { getFileName(): string | null | undefined }[]).map((site) => site.getFileName() ?? '')
    const outside = frames.filter((frame) => !frame.includes('test/purge/timers'))
    if (!directly) return outside.some((frame) => frame.includes(fromFile))
    return outside.find((frame) => !frame.includes('src/background/idle'))?.includes(fromFile) ?? false
  } finally {
    E.prepareStackTrace = format
  }
}

/** The global functions that schedule, as they are now (those the realm lacks: `undefined`). */
function scheduling() {
  const g = globalThis as any
  return { setTimeout: g.setTimeout, clearTimeout: g.clearTimeout, requestIdleCallback: g.requestIdleCallback, cancelIdleCallback: g.cancelIdleCallback }
}

/** Puts back what {@link scheduling} saw, removing what the realm did not have. */
function putBack(original: ReturnType<typeof scheduling>): void {
  const g = globalThis as any
  for (const [key, value] of Object.entries(original)) {
    if (value === undefined) delete g[key]
    else g[key] = value
  }
}

/**
 * Tracks the timers and idle callbacks created from one source file while installed, to prove
 * that nothing it scheduled is still pending, and with what delays. `directly`: only those it
 * sets itself (see {@link calledFrom}), not those of what it calls.
 */
export function trackTimers(fromFile: string, directly = false) {
  const pending = new Set<unknown>()
  let created = 0
  const delays: unknown[] = []
  const g = globalThis as any
  const original = scheduling()
  const ours = () => calledFrom(fromFile, directly)
  const wrapSchedule =
    (schedule: (...a: any[]) => unknown, tag: string) =>
    (fn: (...a: unknown[]) => void, ...rest: unknown[]) => {
      if (!ours()) return schedule(fn, ...rest)
      created++
      delays.push(rest[0])
      const id: unknown = schedule((...a: unknown[]) => {
        pending.delete(tag + id)
        fn(...a)
      }, ...rest)
      pending.add(tag + id)
      return id
    }
  const wrapCancel = (cancel: (id: unknown) => void, tag: string) => (id: unknown) => {
    pending.delete(tag + id)
    cancel(id)
  }
  g.setTimeout = wrapSchedule(original.setTimeout, 't')
  g.clearTimeout = wrapCancel(original.clearTimeout, 't')
  if (original.requestIdleCallback) {
    g.requestIdleCallback = wrapSchedule(original.requestIdleCallback, 'i')
    g.cancelIdleCallback = wrapCancel(original.cancelIdleCallback, 'i')
  }
  return {
    get pending() {
      return pending.size
    },
    get created() {
      return created
    },
    /** The delay (or idle timeout options) each one was scheduled with, in order. */
    delays,
    restore: () => putBack(original),
  }
}

/**
 * Puts the waits of a background purge on the injected `clock`, on a page that is never idle:
 * `requestIdleCallback` (from anywhere) and the timers set from `fromFile` become due when the
 * clock reaches their timeout or delay, and run only when the test calls `runDue`. Slices are then
 * counted in clock time, however slowly a loaded machine runs them. `next()` resolves at the next
 * wait registered (a scheduler sets one after each slice). Returns a function that puts the real
 * ones back, too.
 */
export function timersOnClock(fromFile: string, clock: () => number) {
  const g = globalThis as any
  const original = scheduling()
  const waits = new Map<number, { due: number; run: () => void }>()
  let lastId = 0
  let registered: (() => void) | undefined
  const add = (due: number, run: () => void) => {
    waits.set(++lastId, { due, run })
    registered?.()
    return { onClock: lastId }
  }
  const remove = (handle: unknown) => void waits.delete((handle as { onClock?: number } | undefined)?.onClock ?? NaN)
  g.setTimeout = (fn: (...a: unknown[]) => void, delay = 0, ...rest: unknown[]) =>
    calledFrom(fromFile, true) ? add(clock() + delay, () => fn(...rest)) : original.setTimeout.call(g, fn, delay, ...rest)
  g.clearTimeout = (handle: unknown) => (typeof handle === 'object' && handle !== null && 'onClock' in handle ? remove(handle) : original.clearTimeout.call(g, handle))
  g.requestIdleCallback = (run: (deadline: IdleDeadline) => void, options?: IdleRequestOptions) =>
    add(clock() + (options?.timeout ?? 0), () => run({ didTimeout: true, timeRemaining: () => 0 }))
  g.cancelIdleCallback = remove
  return {
    /** Runs, in the order they fall due, the waits the clock has reached; returns how many. */
    runDue(): number {
      const due = [...waits].filter(([, wait]) => wait.due <= clock()).sort(([a, x], [b, y]) => x.due - y.due || a - b)
      for (const [id, wait] of due) {
        // One that ran may have cancelled another (a wake-up cancels the sleep).
        if (!waits.delete(id)) continue
        wait.run()
      }
      return due.length
    },
    next: () => new Promise<void>((resolve) => (registered = resolve)),
    restore: () => putBack(original),
  }
}
