/** Opening a mirrored store, and reading its outbox. */
import { OUTBOX_STORE } from '../../src/layout/sync-stores.js'
import { deleteDB } from 'idb'
import type { Container } from '@azure/cosmos'
import type { CosmosSync } from '../../src/cosmos/index.js'
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

/** Ends a test's mirror: stops its sync, closes and deletes its database, deletes its container. */
export async function tearDown(sync: CosmosSync, db: TtlDB, name: string, container: Container): Promise<void> {
  sync.stop()
  db.close()
  await deleteDB(name)
  await container.delete()
}
