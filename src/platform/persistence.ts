/**
 * `requestPersistence()`: asking the browser to keep the origin's storage. Apart from
 * `bucket.ts`, which the page entries load only when an app uses Storage Buckets or
 * `db.storage()`, since it is a few lines (issue #44).
 */

/** What {@link requestPersistence} answers. */
export interface PersistenceAnswer {
  /** Whether the origin's storage is persisted now (`false` where the platform cannot say). */
  persisted: boolean
  /** Whether this global can ask (`navigator.storage.persist`: windows only). */
  supported: boolean
}

/**
 * Asks the browser to keep the origin's default bucket under storage pressure
 * (`navigator.storage.persist()`; call it from a user gesture in a window: Firefox asks the user,
 * Chromium and Safari decide by engagement or installation). In a worker, or where the platform
 * has no such call, it asks nothing and reports what it can. Never throws. A bucket is
 * persisted by its own `persisted` option instead.
 */
export async function requestPersistence(): Promise<PersistenceAnswer> {
  const storage = globalThis.navigator?.storage
  const persist = typeof storage?.persist === 'function'
  const persisted = await (persist ? storage.persist() : storage?.persisted?.())?.catch(() => false)
  return { persisted: persisted ?? false, supported: persist }
}
