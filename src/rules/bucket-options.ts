/** The `bucket` option of `openTtlDB`: the Storage Bucket a database lives in, and its check. */
import { kindOf, TtlError } from './errors.js'
import { checkKnownOptions } from './option-hint.js'

/**
 * The Storage Bucket a database lives in (Chromium 122+, Edge: `navigator.storageBuckets`), with
 * the bucket's own settings, given when this open creates it. Where the platform has no Storage
 * Buckets the database lives in the origin's default bucket, and `db.storage()` says so
 * (docs/storage.md).
 */
export interface BucketOptions {
  /** The bucket's name: lowercase letters, digits, `_` and `-`, starting with a letter or digit, at most 64. */
  name: string
  /** Ask that the browser never evict the bucket (granted or not as `navigator.storage.persist()` is). */
  persisted?: boolean
  /** `'strict'` (flushed to disk before a write commits) or `'relaxed'`; the bucket's default for its transactions. */
  durability?: 'strict' | 'relaxed'
  /** The bucket's own quota in bytes. */
  quota?: number
  /** When the browser may delete the bucket, in epoch ms. */
  expires?: number
  /**
   * `true`: the bucket's expiry is kept at or after the latest expiry of the items it holds (set
   * once the database has been idle after writes, and at close; never while an item lives on
   * forever). Not with `expires`.
   */
  expiresAfterItems?: boolean
}

/** The options `bucket` takes. */
const BUCKET_OPTIONS = ['name', 'persisted', 'durability', 'quota', 'expires', 'expiresAfterItems']

const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** Each setting's check, and what it must be. */
const SETTINGS: Record<string, [(value: unknown) => boolean, string]> = {
  persisted: [(value) => typeof value === 'boolean', 'a boolean'],
  expiresAfterItems: [(value) => typeof value === 'boolean', 'a boolean'],
  durability: [(value) => value === 'strict' || value === 'relaxed', "'strict' or 'relaxed'"],
  quota: [(value) => Number.isSafeInteger(value) && (value as number) > 0, 'a positive whole number of bytes'],
  expires: [Number.isFinite, 'a time in epoch ms'],
}

/**
 * @throws TtlError `INVALID_OPTION` naming the field of `bucket` that is malformed
 */
export function checkBucketOptions(bucket: unknown): BucketOptions | undefined {
  if (bucket === undefined) return undefined
  const where = 'openTtlDB: bucket'
  if (bucket === null || typeof bucket !== 'object') throw new TtlError('INVALID_OPTION', `${where} must be an object { name, persisted?, durability?, quota?, expires? }; got ${kindOf(bucket)}`)
  checkKnownOptions(where, bucket, BUCKET_OPTIONS)
  const { name, expires, expiresAfterItems } = bucket as BucketOptions
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new TtlError('INVALID_OPTION', `${where}.name must be lowercase letters, digits, '_' and '-', starting with a letter or digit, at most 64; got ${typeof name === 'string' ? JSON.stringify(name) : kindOf(name)}`)
  }
  for (const [field, value] of Object.entries(bucket)) {
    const [valid, wanted] = SETTINGS[field] ?? [() => true]
    if (value !== undefined && !valid(value)) throw new TtlError('INVALID_OPTION', `${where} "${name}": ${field} must be ${wanted}; got ${kindOf(value)}`)
  }
  if (expires !== undefined && expiresAfterItems) throw new TtlError('INVALID_OPTION', `${where} "${name}": expires and expiresAfterItems exclude each other`)
  return bucket as BucketOptions
}
