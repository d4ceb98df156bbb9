/**
 * What only an app that uses Storage Buckets or `db.storage()` runs: opening a bucket and
 * checking its options, the answer of `db.storage()`, and forgetting a deleted database in the
 * registry of databases seen. The page entries load it with `import()` when an open names a
 * bucket, at the first `db.storage()` and at `deleteTtlDB` (issue #44: out of the first load);
 * `idb-ttl/service-worker` imports it (service workers forbid `import()`). The full handle's
 * watch of its storage (`onLost`, `bucket.expiresAfterItems`) is loaded apart
 * (`storage-watch.ts`), since `idb-ttl/core` has neither.
 */
export { openIn, storageStatus } from '../platform/bucket.js'
export { forgetSeen } from '../platform/seen.js'
export { checkBucketOptions } from '../rules/bucket-options.js'
