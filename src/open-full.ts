/** The full handle ({@link TtlDB}) of `idb-ttl` and `idb-ttl/service-worker`, assembled from an open database. */
import type { StartWorker } from './background/background.js'
import { TtlDB } from './db.js'
import { inlinePurger, Parts } from './handle/parts.js'
import { Routes } from './handle/routes.js'
import type { Opened } from './open.js'

/** Assembles a full handle whose worker mode's purge is started by `startWorker` (absent: inline). */
export function fullHandle<S>(startWorker: StartWorker | undefined): (opened: Opened) => TtlDB<S> {
  return (opened) => {
    const parts = new Parts({ ...opened, startWorker, pagePurger: inlinePurger })
    const routes = new Routes({ ...opened, parts })
    routes.settingsChanged(opened.redeclared)
    return new TtlDB<S>(routes, opened.unfollow)
  }
}
