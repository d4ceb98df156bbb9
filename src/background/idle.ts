/** The first idle moment: when the purge runs, and when a page entry loads it (`lazy.ts`). */

/** `requestIdleCallback` where it exists; `setTimeout` in workers, Safari and Node. Returns a cancel. */
export function whenIdle(run: () => void, timeout: number): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(run, { timeout })
    return () => cancelIdleCallback(id)
  }
  const id = setTimeout(run, 0)
  return () => clearTimeout(id)
}
