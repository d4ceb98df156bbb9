/**
 * The routes of `idb-ttl/core`'s handle, which reads and writes no generations and queues no
 * writes for a mirror: the core's (`core-routes.ts`), refusing on each connection the stores that
 * keep their values in generations, and the writes of a store whose settings say it is mirrored.
 * Apart, so that the full handle, which refuses neither, carries none of it.
 */
import { META_STORE } from '../layout/expiry-index.js'
import { usesGenerations } from '../layout/generation-index.js'
import { heldSettings, settingsIn, settingsTicket } from '../layout/held-settings.js'
import type { TtlError } from '../rules/errors.js'
import { refuse } from '../rules/refusal.js'
import { CoreRoutes } from './core-routes.js'

export class CoreOnlyRoutes extends CoreRoutes {
  /**
   * `store` keeps its values in generations on connection `db`. Asked of each connection, so that
   * a store an upgrade elsewhere gave generations is refused from the reopening on; the handle's
   * other stores serve on. `undefined` also where the connection cannot tell (it is closing): the
   * request made on it then fails as any would, as a rejection.
   */
  protected override refused(db: IDBDatabase, store: string): TtlError | undefined {
    try {
      if (!usesGenerations(db, store)) return undefined
    } catch {
      return undefined
    }
    return refuse('UNSUPPORTED', 'generationsInCore', store)
  }

  /**
   * A store whose settings say it is mirrored (`mirror: true`, declared by a full handle) has every
   * write queued for the server (SPEC §12b), which `idb-ttl/core` cannot do: its writes are refused.
   * @throws TtlError `UNSUPPORTED` naming the store, `mirror` and the full entry (`refuse`d: the write explains it)
   */
  protected override async refuseUnqueued(db: IDBDatabase, store: string): Promise<void> {
    const settings = heldSettings(db.name, store) ?? (await settingsIn(db.transaction(META_STORE), store, settingsTicket(db.name)))
    if (!settings.mirror) return
    throw refuse('UNSUPPORTED', 'mirroredInCore', store)
  }
}
