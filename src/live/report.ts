/**
 * How a live query tells its subscribers what went wrong, used by the query (`query.ts`) and by
 * what runs it, loaded later (`subscribers.ts`). A module of its own, built into the core's chunk
 * (scripts/build-lib.mjs), so that the later chunk imports nothing of the full entry's first one.
 */
/** Tells a subscriber its query failed: its `error`, or surfaced as an event listener's error would be. */
export function failed(sink: { error?(error: unknown): void }, error: unknown): void {
  if (sink.error) call(() => sink.error!(error))
  else report(error)
}

/** A subscriber's error is its own: it neither stops the others nor the query, and surfaces as an event listener's would. */
export function call(run: () => void): void {
  try {
    run()
  } catch (error) {
    report(error)
  }
}

function report(error: unknown): void {
  queueMicrotask(() => {
    throw error
  })
}
