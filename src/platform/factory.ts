/**
 * The IndexedDB a database lives in: its Storage Bucket's (`bucket.indexedDB`) once this realm
 * opened it in one (`bucket.ts`), the global `indexedDB` otherwise. Every open, deletion and
 * listing of a database (its generations included) asks here, so that the handle, the purge
 * worker and the generations all use the same bucket. Static and small: the page entries load
 * `bucket.ts` only when an open names a bucket (issue #44).
 */

/** The parts of a `StorageBucket` the library uses (not in TypeScript's DOM types yet). */
export interface StorageBucket {
  readonly name: string
  readonly indexedDB: IDBFactory
  persisted(): Promise<boolean>
  estimate(): Promise<StorageEstimate>
  expires(): Promise<number | null>
  setExpires(expires: number): Promise<void>
}

/** The bucket each database of this realm was opened in: `null` where one was asked for and the platform has none. */
const placed = new Map<string, StorageBucket | null>()

/** The IDBFactory database `name` lives in, in this realm. */
export function factoryOf(name: string): IDBFactory {
  return placed.get(name)?.indexedDB ?? indexedDB
}

/** Places database `name` in `bucket`, in no bucket where the platform has none (`null`), or in the default one (`undefined`). */
export function place(name: string, bucket: StorageBucket | null | undefined): void {
  if (bucket === undefined) placed.delete(name)
  else placed.set(name, bucket)
}

/** Where database `name` was placed: its bucket, `null` (asked for, the platform has none), `undefined` (the default one). */
export function placement(name: string): StorageBucket | null | undefined {
  return placed.get(name)
}

/** The bucket database `name` was opened in, in this realm; `undefined` for the default one. */
export function bucketOf(name: string): StorageBucket | undefined {
  return placed.get(name) ?? undefined
}
