/**
 * Whether the caller of the function that calls this came from `fromFile`: anywhere up its stack
 * (awaiting callers included), or with `directly` the nearest frame outside this file alone. V8
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
    return (directly ? outside.slice(0, 1) : outside).some((frame) => frame.includes(fromFile))
  } finally {
    E.prepareStackTrace = format
  }
}

/**
 * Tracks the timers and idle callbacks created from one source file while installed, to prove
 * that nothing it scheduled is still pending, and with what delays.
 */
export function trackTimers(fromFile: string) {
  const pending = new Set<unknown>()
  let created = 0
  const delays: unknown[] = []
  const g = globalThis as any
  const original = {
    setTimeout: g.setTimeout,
    clearTimeout: g.clearTimeout,
    requestIdleCallback: g.requestIdleCallback,
    cancelIdleCallback: g.cancelIdleCallback,
  }
  const ours = () => calledFrom(fromFile)
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
    restore() {
      Object.assign(g, original)
    },
  }
}

