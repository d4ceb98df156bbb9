/** Opening a mirrored store, and reading its outbox. */
import { OUTBOX_STORE } from '../../src/layout/sync-stores.js'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { uniqueName } from '../helpers.js'

export const STORES = { items: { keyPath: 'id', mirror: true } }

export function openMirror(clock: () => number, name = uniqueName('cosmos'), version = 1): Promise<TtlDB> {
  return openTtlDB(name, { version, stores: STORES, clock, purge: { mode: 'off' } })
}

/** The outbox records of `items`. */
export async function outbox(db: TtlDB): Promise<unknown[]> {
  return (await db.raw.getAll(OUTBOX_STORE as never)) as unknown[]
}
