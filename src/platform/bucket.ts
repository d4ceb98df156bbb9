/**
 * Storage Buckets (Chromium 122+, Edge): opening the bucket a database lives in, placing the
 * database in its IndexedDB (`factory.ts`), and what the browser says of the storage it is in:
 * persisted or not, usage, quota. Where the platform lacks a call the answer says which, and
 * nothing throws (docs/storage.md).
 */
import type { BucketOptions } from '../rules/bucket-options.js'
import { place, placement, type StorageBucket } from './factory.js'

interface StorageBucketManager {
  keys(): Promise<string[]>
  open(name: string, options?: Omit<BucketOptions, 'name' | 'expiresAfterItems'>): Promise<StorageBucket>
}

/** Where the storage a database lives in stands, as `db.storage()` answers. */
export interface StorageStatus {
  /**
   * The Storage Bucket the database lives in; `null` for the origin's default bucket: no bucket
   * was asked for, or the platform has no Storage Buckets (`missing` then lists `'storageBuckets'`).
   */
  bucket: string | null
  /** Whether the browser will keep this storage under pressure; `undefined` where it cannot say. */
  persisted: boolean | undefined
  /** Bytes used (the bucket's, or the origin's); `undefined` where the browser does not say. */
  usage: number | undefined
  /** Bytes allowed (the bucket's, or the origin's); `undefined` where the browser does not say. */
  quota: number | undefined
  /** When the browser may delete the bucket, in epoch ms; `null`: never, or no bucket. */
  expires: number | null
  /** The calls this platform lacks, each leaving its field as above. */
  missing: StorageCall[]
}

/** A call of the platform `db.storage()` and `requestPersistence()` may find missing. */
export type StorageCall = 'storageBuckets' | 'persisted' | 'persist' | 'estimate'

/** `navigator.storageBuckets`, where the platform has Storage Buckets. */
export function storageBuckets(): StorageBucketManager | undefined {
  return (globalThis.navigator as { storageBuckets?: StorageBucketManager } | undefined)?.storageBuckets
}

/**
 * Opens the bucket `options` names (creating it with its settings) and places database `name`
 * in it; `undefined` (no bucket asked for) or a platform without buckets places it in the
 * default one. Resolves to the bucket, or `undefined` where the database is not in one.
 */
export async function openIn(name: string, options: Pick<BucketOptions, 'name'> & Partial<BucketOptions> | undefined): Promise<StorageBucket | undefined> {
  const buckets = storageBuckets()
  if (!options || !buckets) {
    place(name, options ? null : undefined)
    return undefined
  }
  const { name: bucketName, expiresAfterItems: _, ...settings } = options
  const bucket = await buckets.open(bucketName, settings)
  place(name, bucket)
  return bucket
}

/** Where the storage of database `name` stands (see {@link StorageStatus}). */
export async function storageStatus(name: string): Promise<StorageStatus> {
  const bucket = placement(name)
  const storage = globalThis.navigator?.storage
  const missing: StorageCall[] = bucket === null ? ['storageBuckets'] : []
  const persisted = bucket ? bucket.persisted() : storage?.persisted?.()
  const estimate = bucket ? bucket.estimate() : storage?.estimate?.()
  if (!persisted) missing.push('persisted')
  if (!estimate) missing.push('estimate')
  const [known, figures, expires] = await Promise.all([
    persisted?.catch(() => undefined),
    estimate?.catch(() => undefined),
    bucket?.expires().catch(() => null) ?? null,
  ])
  return { bucket: bucket?.name ?? null, persisted: known, usage: figures?.usage, quota: figures?.quota, expires, missing }
}
