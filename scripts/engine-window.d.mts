/** One browser window that a harness drives (tests, benchmarks): the same small surface for every engine. */
export interface EngineWindow {
  /** The engine and its version, as the driver reports them. */
  readonly version: string
  /** Loads `url` and waits for its load event. */
  goto(url: string): Promise<void>
  /** Runs `fn` in the page with JSON arguments and returns its (awaited, JSON) result. */
  evaluate<A extends unknown[], R>(fn: (...args: A) => R | Promise<R>, ...args: A): Promise<Awaited<R>>
  /** Closes the window and ends every process the driver started. */
  close(): Promise<void>
}
