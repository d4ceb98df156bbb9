/**
 * Takes the timers that live queries' expiry timers (src/live/expiry-timer.ts) set, instead of
 * scheduling them: a test reads their delays, moves its injected clock, and runs them with
 * `fire()`. Every other timer runs as usual (fake-indexeddb's included).
 */
export function captureExpiryTimers() {
  return captureTimers('expiry-timer')
}

/** The same for the timers set by the source files named (`'reads/touch'`: when owed touches are written). */
export function captureTimers(...files: string[]) {
  const g = globalThis as any
  const original = { setTimeout: g.setTimeout, clearTimeout: g.clearTimeout }
  const pending: { id: object; delay: number; run: () => void }[] = []
  // Set by one of those files itself: the frame under this file's. (A timer it leads to, the
  // query's next reading, has it deeper in the stack and runs as usual.) Stacks differ by engine:
  // V8's start with a line "Error", Firefox's and WebKit's do not.
  const ours = () => {
    const frames = (new Error().stack ?? '').split('\n').filter((frame) => frame.includes('/'))
    const caller = frames.find((frame) => !frame.includes('live/timers'))
    return files.some((file) => caller?.includes(file))
  }
  g.setTimeout = (run: () => void, delay: number, ...rest: unknown[]) => {
    if (!ours()) return original.setTimeout.call(g, run, delay, ...rest)
    const id = {}
    pending.push({ id, delay, run })
    return id
  }
  g.clearTimeout = (id: unknown) => {
    const at = pending.findIndex((timer) => timer.id === id)
    if (at >= 0) pending.splice(at, 1)
    else original.clearTimeout.call(g, id)
  }
  return {
    pending,
    /** Runs the timers pending now (a timer may set the next). */
    fire() {
      for (const timer of pending.splice(0)) timer.run()
    },
    restore() {
      Object.assign(g, original)
    },
  }
}
