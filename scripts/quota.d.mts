export interface StreamArgs {
  libUrl: string
  writes: number
  keep: number
  bytes: number
  quotaBytes: number
  /** Bytes of each value of the stream (`bytes` unless given). */
  valueBytes?: number
  /** Writes in flight at once (1 unless given). */
  inFlight?: number
}

/** What the page reports after the stream. */
export interface Outcome {
  accepted: number
  failures: string[]
  /** Times of the writes that needed no room made, and of those during which items were evicted (ms). */
  normalMs: number[]
  reliefMs: number[]
  lastWritten: boolean
  neverFits: string
  neverFitsWritten: number
  keep: number
  cache: number
  evicted: number
}

export interface QuotaWindow {
  version: string
  stream(args: StreamArgs): Promise<Outcome>
  close(): Promise<void>
}

export declare function startQuotaServer(): Promise<{ origin: string; libUrl: string; close(): Promise<void> }>
export declare function openAtQuota(engine: 'chromium' | 'firefox', origin: string, quotaMB: number): Promise<QuotaWindow>
