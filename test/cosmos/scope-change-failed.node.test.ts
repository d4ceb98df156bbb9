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

/** Makes the next `getAll` of the object store `items` throw (the change of scope reads every record so), or every one until restored. */
function failNextGetAll(always = false): () => void {
  const proto = IDBObjectStore.prototype
  const getAll = proto.getAll
  proto.getAll = function (this: IDBObjectStore, ...args: Parameters<IDBObjectStore['getAll']>) {
    if (this.name !== 'items') return getAll.apply(this, args)
    if (!always) proto.getAll = getAll
    throw new DOMException('played by the test', 'UnknownError')
  }
  return () => void (proto.getAll = getAll)
}

/** A mirror that pulled tenant t1's item `a`, its sync stopped: the scope a later sync changes from. */
async function pulledByT1() {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: "t1's" })
  const db = await openMirror(aheadClock())
  const t1 = syncCosmos(db, 'items', container, { partitionKey: 't1' })
  await t1.pull()
  t1.stop()
  return { container, db }
}

/**
 * The first change of scope failed: the store's calls went on at once, showing the old
 * partition's items to the new scope, whose edit of one was then kept as its own and pushed into
 * the new partition (a copy of the old tenant's data). Fixed: the change is tried again (with
 * back-off, 'error' in onStatus meanwhile) and the store's calls wait until it lands.
 */
test("a change of scope that fails is tried again; meanwhile the store's calls wait, and never show the old partition", async () => {
  const { container, db } = await pulledByT1()
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

/**
 * Found by review: a sync stopped while its change of scope kept failing left the store's calls
 * waiting for ever (the gate they wait on never settled). They now fail with TtlError `CLOSED`
 * naming the cause, and a later sync of the same scope lands it and lets them through.
 */
test("a sync stopped before its change of scope landed fails the store's calls, and a later sync lands it", async () => {
  const { container, db } = await pulledByT1()
  const restore = failNextGetAll(true)
  try {
    const t2 = syncCosmos(db, 'items', container, { partitionKey: 't2', backoffMs: 5 })
    const failed = new Promise<void>((resolve) => t2.onStatus((status) => status.state === 'error' && resolve()))
    await failed
    t2.stop()
    await expect(db.getAll('items')).rejects.toMatchObject({ name: 'TtlError', code: 'CLOSED', message: expect.stringContaining('before the store\'s change of scope landed') })
    await expect(db.transaction(['items'], 'readonly', (tx) => tx.getAll('items'))).rejects.toMatchObject({ code: 'CLOSED' })
    restore()
    const t3 = syncCosmos(db, 'items', container, { partitionKey: 't2' })
    expect(await db.getAll('items')).toEqual([])
    t3.stop()
  } finally {
    restore()
    db.close()
  }
})
