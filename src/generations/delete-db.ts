/** Deleting a TTL database whole: the database and the generations its stores keep values in. */
import { generationPrefix } from './values.js'

function deleteDatabase(name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.deleteDatabase(name)
    request.onsuccess = () => resolve()
    request.onerror = () => reject(request.error)
  })
}

/**
 * Deletes the database `name` and the generation databases (`<name>~gen~…`) where its stores
 * with `evictOnQuota` keep their values (docs/capacity-and-quota.md), which
 * `indexedDB.deleteDatabase(name)` would leave behind. Open handles step aside for it, as for
 * an upgrade. Where the browser cannot list its databases (`indexedDB.databases()`), only the
 * database itself is deleted.
 */
export async function deleteTtlDB(name: string): Promise<void> {
  await deleteDatabase(name)
  const listed = (await indexedDB.databases?.().catch(() => undefined)) ?? []
  const generations = listed.map((database) => database.name).filter((other) => other?.startsWith(generationPrefix(name)))
  await Promise.all(generations.map((generation) => deleteDatabase(generation!)))
}
