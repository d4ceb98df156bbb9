/** What the consumer app exposes to the test as `window.consumer` (imports nothing: the repo's tsc reads it too). */
export interface ConsumerApi {
  isPurger(): boolean
  /** Writes `gone` (ttl 1 s) and `kept` (the store's default, 1 h), then moves the clock 5 s on. */
  expireOne(): Promise<void>
  /** Keys physically in the store, expired ones included (`db.raw`). */
  onDisk(): Promise<string[]>
  /** Keys a read returns: live items only. */
  live(): Promise<string[]>
  /** What `onPurge` reported. */
  reports(): { store: string; deleted: number; error?: { name: string; message: string } }[]
  /** Starts a dedicated worker (dedicated.ts) that purges an expired item with the package; what it reports. */
  inWorker(): Promise<{ isPurger: boolean; deleted: number; onDisk: unknown[] }>
}
