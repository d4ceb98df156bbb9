/**
 * What the app does with the records the server refused (`rejected.ts`): queue them again, or
 * give them up for the server's copy.
 */
import { OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { done } from '../platform/request.js'
import { baseOf, describe, isTombstone, type Mirror } from './context.js'
import { unobserved } from './hook.js'
import { queuedAt } from './outbox.js'
import { readServer, withinFilter } from './push.js'
import { dropRefused, dropRejected, listRejected, readRefused, readRejected, requeue } from './rejected.js'
import { onDeviceClock } from './server-clock.js'
import { readBase, writeBase } from './state.js'

/** Queues the set-aside record of `key` (every one when `undefined`) again; resolves to how many. */
export async function retryRejected(mirror: Mirror, key: string | undefined): Promise<number> {
  const tx = (await mirror.internals.native()).transaction([SYNC_STORE, OUTBOX_STORE], 'readwrite')
  const done = new Promise((resolve, reject) => ((tx.oncomplete = resolve), (tx.onabort = () => reject(tx.error))))
  // Should a read fail first, that failure is the one reported, not the abort it causes.
  done.catch(() => {})
  const keys = key === undefined ? (await listRejected(tx, mirror.store)).map((rejected) => rejected.key) : [key]
  const requeued = await Promise.all(keys.map((k) => requeue(tx, mirror.store, k)))
  await done
  return requeued.filter(Boolean).length
}

/**
 * Gives up the set-aside record of `key`: the server's copy now (or its absence) becomes the local
 * item and its base, unless the item was written again since (that write goes with the next push).
 * A server copy the store refused is forgotten: the local item stays as it is, in step with that
 * copy (a pull skips it until it changes; a write of the item is pushed over it).
 */
export async function discardRejected(mirror: Mirror, key: string): Promise<boolean> {
  const { store } = mirror
  const [rejected, base, refused] = await readRejectedAndBase(mirror, key)
  if (!rejected && refused) {
    const tx = (await mirror.internals.native()).transaction(SYNC_STORE, 'readwrite')
    dropRefused(tx, store, key)
    writeBase(tx, store, key, refused.base)
    await done(tx)
    return true
  }
  if (!rejected) return false
  // The container's key paths and the server's clock, as a round learns them.
  await describe(mirror)
  const copy = await readServer(mirror, key, base?.pk)
  const server = copy && (await withinFilter(mirror, copy))
  return unobserved(mirror.db, store, [OUTBOX_STORE, SYNC_STORE], async (tx) => {
    dropRejected(tx.raw, store, key)
    if (await queuedAt(tx.raw, store, key)) return true
    writeBase(tx.raw, store, key, server && baseOf(mirror, server))
    if (server && !isTombstone(mirror, server)) tx.put(onDeviceClock(mirror, server))
    else tx.delete(key)
    return true
  })
}

async function readRejectedAndBase(mirror: Mirror, key: string) {
  const tx = (await mirror.internals.native()).transaction([SYNC_STORE])
  return Promise.all([readRejected(tx, mirror.store, key), readBase(tx, mirror.store, key), readRefused(tx, mirror.store, key)])
}
