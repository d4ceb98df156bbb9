/** Opening a mirrored store, and local writes as an app makes them (queued by the write observer). */
import { unwrap } from 'idb'
import { OUTBOX_STORE } from '../../src/layout/sync-stores.js'
import { OBSERVING } from '../../src/cosmos/hook.js'
import { queue } from '../../src/cosmos/outbox.js'
import { done } from '../../src/platform/request.js'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { uniqueName } from '../helpers.js'

export const STORES = { items: { keyPath: 'id', keepTs: true } }

export function openMirror(clock: () => number, name = uniqueName('cosmos'), version = 1): Promise<TtlDB> {
  return openTtlDB(name, { version, stores: STORES, clock, purge: { mode: 'off' } })
}

/**
 * Until the write observer of src/transaction/ lands, the outbox record an observed write would
 * queue is queued here, in a transaction of its own.
 */
async function queueByHand(db: TtlDB, key: string, op: 'put' | 'delete', at: number): Promise<void> {
  if (OBSERVING) return
  const tx = unwrap(db.raw).transaction(OUTBOX_STORE, 'readwrite')
  queue(tx, { store: 'items', key, op, at })
  await done(tx)
}

export async function localPut(db: TtlDB, item: Record<string, unknown> & { id: string }, clock: () => number): Promise<void> {
  await db.put('items', item)
  await queueByHand(db, item.id, 'put', clock())
}

export async function localDelete(db: TtlDB, id: string, clock: () => number): Promise<void> {
  await db.delete('items', id)
  await queueByHand(db, id, 'delete', clock())
}

/** The outbox records of `items`. */
export async function outbox(db: TtlDB): Promise<unknown[]> {
  return (await db.raw.getAll(OUTBOX_STORE as never)) as unknown[]
}
