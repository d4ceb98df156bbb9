/**
 * Main-thread long tasks (`PerformanceObserver('longtask')`) that began inside a time window.
 * Only Chromium reports them: elsewhere the count is `null` (not measurable), never 0.
 */

export interface LongTaskWindow {
  /** Ends the window; resolves to how many long tasks began in it, or `null` where none can be seen. */
  close(): Promise<number | null>
}

export function openLongTaskWindow(): LongTaskWindow {
  if (!PerformanceObserver.supportedEntryTypes.includes('longtask')) return { close: async () => null }
  const seen: PerformanceEntry[] = []
  const observer = new PerformanceObserver((list) => seen.push(...list.getEntries()))
  observer.observe({ type: 'longtask' })
  const start = performance.now()
  return {
    async close() {
      const end = performance.now()
      // Entries arrive after their task ends: give the last one time to be reported.
      await new Promise((resolve) => setTimeout(resolve, 100))
      seen.push(...observer.takeRecords())
      observer.disconnect()
      return seen.filter((task) => task.startTime >= start && task.startTime < end).length
    },
  }
}
