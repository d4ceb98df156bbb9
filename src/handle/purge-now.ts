/**
 * `db.purgeExpired` and the purge of the expired that quota relief starts (`core-routes.ts`
 * `CoreRoutes.purgeExpired`): with the handle's less common calls (`assembly/calls.ts`), loaded at
 * the first (issue #44).
 */
import { settleTouches } from '../reads/owed-touches.js'
import { describeError } from '../rules/errors.js'
import type { CoreRoutes } from './core-routes.js'

/**
 * Deletes what is expired now in `names` (the stores of `store`, or every store: `undefined`),
 * past its grace (`keepExpired`) unless `stale` (quota relief, SPEC §15); resolves to how many
 * went, and reports to `onPurge` what went or why it failed.
 */
export async function purgeNow(routes: CoreRoutes, names: string[], store: string | undefined, stale: boolean): Promise<number> {
  const { name, clock, parts, connection } = routes.options
  // Owed touches written first, but not as a request of the app's (`settled`): the purge would
  // take its own call for one and go courteously, in small batches with pauses.
  await Promise.all(names.map((store) => settleTouches(name, store)))
  await connection.native()
  const started = performance.now()
  const report = { store: store ?? '*', deleted: 0, more: false, nextExpiryMs: NaN }
  try {
    report.deleted = await parts.background.purger.purgeAll(names, clock(), stale)
  } catch (error) {
    if (!parts.closed) parts.reports.emit({ ...report, durationMs: performance.now() - started, error: describeError(error) })
    throw error
  }
  if (report.deleted > 0) {
    parts.reports.emit({ ...report, durationMs: performance.now() - started })
    routes.changed(names)
  }
  return report.deleted
}
