/**
 * Told, not surprised: a database the browser took (evicted its bucket, deleted it under
 * Safari's seven-day rule, cleared it under storage pressure) is reported at the next open,
 * where the registry of databases seen (`platform/seen.ts`) outlived it. The registry learns of
 * the database at open, once its changes have rested, when the page is hidden and at close
 * (`at-rest.ts`): never on a write.
 */
import type { Connection } from '../layout/connection.js'
import { req } from '../platform/request.js'
import { lastSeen, recordSeen } from '../platform/seen.js'
import type { LostReport } from '../rules/types.js'


async function countItems(db: IDBDatabase, stores: readonly string[]): Promise<number> {
  const tx = db.transaction(stores)
  const counts = await Promise.all(stores.map((store) => req(tx.objectStore(store).count())))
  return counts.reduce((sum, count) => sum + count, 0)
}

/**
 * At open: the database as lost when this open created it while the registry says it held
 * items; then records it as seen. Resolves to the report and to the recording, which the handle
 * runs at rest (without its connection, at close: the time alone, with the items last counted).
 * The registry's own failures report nothing and never fail the open.
 */
export async function checkLost(
  name: string,
  bucket: string | null,
  connection: Connection,
  stores: readonly string[],
  clock: () => number,
): Promise<{ lost: LostReport | undefined; record: () => Promise<void> }> {
  const before = await lastSeen(name, bucket).catch(() => undefined)
  const lost = connection.created && before && before.items > 0 ? { name, bucket, lastSeen: before.lastSeen, items: before.items } : undefined
  let items = 0
  const record = async () => {
    const db = connection.openNow
    if (db) items = await countItems(db, stores)
    await recordSeen(name, bucket, { lastSeen: clock(), items })
  }
  await record().catch(() => {})
  return { lost, record }
}
