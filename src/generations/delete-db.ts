/** Deleting a TTL database whole: the database and the generations its stores keep values in. */
import { requireIndexedDB } from '../platform/available.js'
import type { openIn } from '../platform/bucket.js'
import { bucketOf, factoryOf } from '../platform/factory.js'
import type { forgetSeen } from '../platform/seen.js'
import type { checkBucketOptions } from '../rules/bucket-options.js'
import { explain, type LoadTexts } from '../rules/refusal.js'
import { generationPrefix } from './names.js'

function deleteDatabase(factory: IDBFactory, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = factory.deleteDatabase(name)
    request.onsuccess = () => resolve()
    request.onerror = () => reject(request.error)
  })
}

/** What a deletion needs of the storage work (`handle/storage-work.ts`), as the entry loads it. */
type LoadStorage = () => Promise<{ checkBucketOptions: typeof checkBucketOptions; openIn: typeof openIn; forgetSeen: typeof forgetSeen }>

/**
 * `deleteTtlDB` of an entry: {@link deleteTtlDB}, with the storage work (buckets, the registry of
 * databases seen) and the words of its refusals (`rules/texts.ts`) as the entry loads them.
 */
export const deletingWith = (loadStorage: LoadStorage, texts: LoadTexts) => (name: string, options?: { bucket?: string }) =>
  deleteTtlDB(name, options, loadStorage).catch((error: unknown) => explain(error, texts))

/**
 * Deletes the database `name` and the generation databases (`<name>~gen~…`) where its stores
 * with `evictOnQuota` keep their values (docs/capacity-and-quota.md), which
 * `indexedDB.deleteDatabase(name)` would leave behind. Open handles step aside for it, as for
 * an upgrade. Where the browser cannot list its databases (`indexedDB.databases()`), only the
 * database itself is deleted. A database in a Storage Bucket is deleted from the bucket this
 * realm opened it in, or from `options.bucket` (docs/storage.md); `onLost` will not report it.
 *
 * The generations go first, the database last: an open handle that writes once the database is
 * gone recreates it (as declared) and starts numbering generations afresh, so generations
 * listed after that may hold its values. A write that lands before the database is deleted
 * goes with it; one that started a generation after the listing leaves that generation behind,
 * unreferenced, for the sweep of strays.
 * @throws TtlError `UNSUPPORTED` where there is no IndexedDB (Node); `INVALID_OPTION` for a bad bucket name
 */
export async function deleteTtlDB(name: string, options: { bucket?: string } | undefined, loadStorage: LoadStorage): Promise<void> {
  requireIndexedDB('deleteTtlDB', name)
  const { checkBucketOptions, forgetSeen, openIn } = await loadStorage()
  const bucket = options?.bucket === undefined ? undefined : checkBucketOptions({ name: options.bucket })
  if (bucket) await openIn(name, bucket)
  const factory = factoryOf(name)
  const listed = (await factory.databases?.().catch(() => undefined)) ?? []
  const generations = listed.map((database) => database.name).filter((other) => other?.startsWith(generationPrefix(name)))
  await Promise.all(generations.map((generation) => deleteDatabase(factory, generation!)))
  await deleteDatabase(factory, name)
  // No loss to report when the next open creates it again.
  await forgetSeen(name, bucketOf(name)?.name ?? null).catch(() => {})
}
