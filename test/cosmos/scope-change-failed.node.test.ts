/**
 * SPEC §12b "Scope", when the change of scope itself fails (its transaction aborts): the store
 * never shows the old scope to the new one meanwhile. Node only: the failure is played by
 * IndexedDB's own `getAll` throwing once (fake-indexeddb's, patched for the test).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos, type SyncStatus } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

/** Makes the next `getAll` of the object store `items` throw (the change of scope reads every record so). */
function failNextGetAll(): () => void {
  const proto = IDBObjectStore.prototype
  const getAll = proto.getAll
  proto.getAll = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['getAll']>) {
    if (this.name !== 'items') return getAll.apply(this, args)
    proto.getAll = getAll
    throw new DOMException('played by the test', 'UnknownError')
  }
  return () => void (proto.getAll = getAll)
}

/**
 * The first change of scope failed: the store's calls went on at once, showing the old
 * partition's items to the new scope, whose edit of one was then kept as its own and pushed into
 * the new partition (a copy of the old tenant's data). Fixed: the change is tried again (with
 * back-off, 'error' in onStatus meanwhile) and the store's calls wait until it lands.
 */
test("a change of scope that fails is tried again; meanwhile the store's calls wait, and never show the old partition", async () => {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: "t1's" })
  const db = await openMirror(aheadClock())
  const t1 = syncCosmos(db, 'items', container, { partitionKey: 't1' })
  await t1.pull()
  t1.stop()
  const restore = failNextGetAll()
  try {
    const t2 = syncCosmos(db, 'items', container, { partitionKey: 't2', backoffMs: 5 })
    const states: SyncStatus[] = []
    t2.onStatus((status) => states.push(status))
    expect(await db.getAll('items')).toEqual([])
    expect(states.slice(0, 2)).toMatchObject([{ state: 'idle' }, { state: 'error', error: { name: 'UnknownError' } }])
    await db.put('items', { id: 'b', text: "t2's" })
    expect(await t2.push()).toBe(1)
    expect((await container.item('a', 't2').read()).statusCode).toBe(404)
    expect(await t2.rejected()).toEqual([])
    t2.stop()
  } finally {
    restore()
    db.close()
  }
})
