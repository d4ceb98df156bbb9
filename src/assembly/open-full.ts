/**
 * `openTtlDB` of `idb-ttl` and `idb-ttl/service-worker`, less how the purge starts: the
 * full handle ({@link TtlDB}), and the app's `upgrade` given idb's views (SPEC §5), which
 * `idb-ttl/core` leaves out so as to carry no idb.
 */
import { wrap, type DBSchema, type IDBPDatabase } from 'idb'
import type { MakeBackground } from '../background/background.js'
import { TtlDB } from './db.js'
import { Parts } from '../handle/parts.js'
import { Routes, type FullLoads } from '../handle/routes.js'
import { openDatabase, type LoadUpgrade } from './open.js'
import { checkOnLost, watchStorage } from '../handle/storage-watch.js'
import type { OpenTtlCoreDBOptions, OpenTtlDBOptions } from '../rules/types.js'

/**
 * Opens `name` with a full handle whose background (how its purge starts) `background` makes, with
 * the schema work `loadUpgrade` brings, and with what its routes load on first use (`loads`).
 */
export async function openFull<S extends DBSchema | unknown>(
  name: string,
  options: OpenTtlDBOptions<S>,
  background: MakeBackground,
  loadUpgrade: LoadUpgrade,
  loads: FullLoads,
): Promise<TtlDB<S>> {
  checkOnLost((options as OpenTtlDBOptions<S> | null)?.onLost)
  let lost: ReturnType<typeof watchStorage> | undefined
  const db = await openDatabase(name, withIdbViews(options), loadUpgrade, (opened) => {
    const parts = new Parts({ ...opened, background })
    const routes = new Routes({ ...opened, parts }, loads)
    routes.settingsChanged(opened.redeclared)
    lost = watchStorage({ ...opened, parts, bucket: options.bucket, onLost: options.onLost })
    return new TtlDB<S>(routes, opened.unfollow)
  })
  return Object.assign(db, { lost: await lost })
}

/**
 * The options with the app's `upgrade` given idb's view of the native database, as idb's `openDB`
 * gives it (the same view `raw` gives later: idb keeps one per native object).
 */
function withIdbViews<S>(options: OpenTtlDBOptions<S>): OpenTtlCoreDBOptions<S> {
  // Options that are no object, or an upgrade that is no function, are `openDatabase`'s to refuse, as they are.
  const upgrade = (options as OpenTtlDBOptions<S> | null | undefined)?.upgrade
  if (typeof upgrade !== 'function') return options as OpenTtlCoreDBOptions<S>
  return {
    ...options,
    upgrade: (db, oldVersion, newVersion, tx) => {
      // idb's promise for the transaction (`done`) rejects when the upgrade aborts; the open reports why.
      wrap(tx).done.catch(() => {})
      // An async upgrade's promise is returned: its rejection aborts the upgrade and the open rejects with it.
      return upgrade(wrap(db) as IDBPDatabase<S>, oldVersion, newVersion)
    },
  }
}
