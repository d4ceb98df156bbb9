/** Deleting a TTL database whole: the database and the generations its stores keep values in. */
import { requireIndexedDB } from '../platform/available.js'
import { factoryOf } from '../platform/factory.js'
import { generationPrefix } from './values.js'

function deleteDatabase(factory: IDBFactory, name: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = factory.deleteDatabase(name)
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
 *
 * The generations go first, the database last: an open handle that writes once the database is
 * gone recreates it (as declared) and starts numbering generations afresh, so generations
 * listed after that may hold its values. A write that lands before the database is deleted
 * goes with it; one that started a generation after the listing leaves that generation behind,
 * unreferenced, for the sweep of strays.
 * @throws TtlError `UNSUPPORTED` where there is no IndexedDB (Node)
 */
export async function deleteTtlDB(name: string): Promise<void> {
  requireIndexedDB(`deleteTtlDB(${JSON.stringify(name)})`)
  const factory = factoryOf(name)
  const listed = (await factory.databases?.().catch(() => undefined)) ?? []
  const generations = listed.map((database) => database.name).filter((other) => other?.startsWith(generationPrefix(name)))
  await Promise.all(generations.map((generation) => deleteDatabase(factory, generation!)))
  await deleteDatabase(factory, name)
}
