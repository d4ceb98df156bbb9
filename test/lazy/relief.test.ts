// Issue #44: the steps of quota relief (purge/relief.ts) are loaded by the page entries with
// `import()` at the first write refused for lack of space. Where they cannot be loaded, that write
// rejects as one that never fits does (SPEC §9: the original QuotaExceededError, nothing written);
// the next write refused loads them again.
import { deleteDB } from 'idb'
import { expect, onTestFinished, test } from 'vitest'
import { smallDisk } from '../capacity/disk.js'
import { IN_FIREFOX, uniqueName } from '../helpers.js'
import { chunks, SOON } from './loaders.js'

test('a write at a full disk whose relief cannot be loaded rejects with the original QuotaExceededError and writes nothing; the next loads it and fits', async () => {
  const { open, relief } = chunks()
  const disk = smallDisk(3)
  const name = uniqueName()
  const db = await open(name, { purge: { mode: 'inline' }, stores: { s: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true } } })
  for (let id = 0; disk.room > 0; id++) await db.put('s', { id })
  relief.failNext(new TypeError('Failed to fetch dynamically imported module'))
  await expect(db.put('s', { id: 'over' })).rejects.toMatchObject({ name: 'QuotaExceededError' })
  expect(await db.get('s', 'over')).toBeUndefined()
  await db.put('s', { id: 'over' })
  expect(relief.loads).toBe(2)
  expect(await db.get('s', 'over')).toMatchObject({ id: 'over' })
  db.close()
  await deleteDB(name)
})

/** Counts the writes the test disk refuses from now on (until the test ends). */
function countRefusals() {
  const refused = { count: 0 }
  const proto = IDBObjectStore.prototype
  const { put } = proto
  proto.put = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['put']>) {
    try {
      return put.apply(this, args)
    } catch (error) {
      if ((error as DOMException).name === 'QuotaExceededError') refused.count++
      throw error
    }
  }
  onTestFinished(() => void (proto.put = put))
  return refused
}

// Firefox keeps evictOnQuota values in their rows: no generation whose room comes back late.

test.skipIf(IN_FIREFOX)('two writes refused while the steps of relief load make room one at a time once loaded: both land', async () => {
  const { open, relief } = chunks()
  const name = uniqueName()
  const kept = { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true }
  // Two stores: calls on one store wait for those before them (handle/turns.ts), a write at a full disk included.
  const db = await open(name, { purge: { mode: 'inline' }, stores: { s: kept, t: kept } })
  let settled!: () => void
  const oneSettled = new Promise<void>((resolve) => (settled = resolve))
  // As in capacity/quota.test.ts: the room of a deleted generation comes back late, or once one write settled.
  smallDisk(4, { quota: 1_000_000, roomBack: () => Promise.race([oneSettled, new Promise<void>((resolve) => setTimeout(resolve, 300))]) })
  for (let id = 0; id < 4; id++) await db.put('s', { id })
  const refused = countRefusals()
  relief.hold()
  const writes = [db.put('s', { id: 'a' }), db.put('t', { id: 'b' })]
  for (const write of writes) void write.then(settled, settled)
  // Both refused, both waiting for the one load of the steps (the full entry loads them once).
  await expect.poll(() => refused.count, SOON).toBe(2)
  expect(relief.loads).toBe(1)
  relief.release()
  // Side by side, the relief that did not delete the generation itself would find nothing left to
  // give up and reject at once, without waiting for the room the other's deletion gives back.
  expect(await Promise.allSettled(writes)).toEqual([
    { status: 'fulfilled', value: 'a' },
    { status: 'fulfilled', value: 'b' },
  ])
  expect([await db.getAllKeys('s'), await db.getAllKeys('t')]).toEqual([['a'], ['b']])
  db.close()
  await deleteDB(name)
})
