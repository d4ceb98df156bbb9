/**
 * What a pull page reads of its items (src/cosmos/page-state.ts): the same answers whichever way
 * the queued and set-aside writes are found (their span read whole, or item by item), and no
 * request per item for them where their spans hold few entries.
 */
import { afterEach, describe, expect, test, vi } from 'vitest'
import { readPageState } from '../../src/cosmos/page-state.js'
import { OUTBOX_STORE, SYNC_STORE } from '../../src/layout/sync-stores.js'
import { createSyncStores } from '../../src/layout/create-sync-stores.js'
import { uniqueName } from '../helpers.js'

const STORE = 'items'

async function openSyncStores(): Promise<IDBDatabase> {
  const request = indexedDB.open(uniqueName('page-state'), 1)
  request.onupgradeneeded = () => createSyncStores(request.result)
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
}

interface Known {
  queued?: [string, string][]
  rejected?: string[]
  bases?: [string, unknown][]
}

/** A database whose outbox and sync store hold `known` (`queued`: store and key). */
async function seeded(known: Known): Promise<IDBDatabase> {
  const db = await openSyncStores()
  const tx = db.transaction([OUTBOX_STORE, SYNC_STORE], 'readwrite')
  for (const [store, key] of known.queued ?? []) tx.objectStore(OUTBOX_STORE).add({ store, key, op: 'put', at: 1 })
  for (const key of known.rejected ?? []) tx.objectStore(SYNC_STORE).put({ key, op: 'put', at: 1, status: 400, message: 'no' }, [STORE, 'rejected', key])
  for (const [key, base] of known.bases ?? []) tx.objectStore(SYNC_STORE).put(base, [STORE, 'etag', key])
  await new Promise((resolve) => (tx.oncomplete = resolve))
  return db
}

async function stateOf(db: IDBDatabase, ids: string[]) {
  const tx = db.transaction([OUTBOX_STORE, SYNC_STORE], 'readonly')
  return readPageState(tx, STORE, ids)
}

/** Requests that look for one key's queued or set-aside write (bases are always read by key). */
function perKeyReads() {
  return [vi.spyOn(IDBObjectStore.prototype, 'count'), vi.spyOn(IDBIndex.prototype, 'getKey'), vi.spyOn(IDBIndex.prototype, 'get')]
}
const callsOf = (spies: ReturnType<typeof perKeyReads>) => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0)

afterEach(() => void vi.restoreAllMocks())

describe('readPageState', () => {
  test('nothing queued or set aside in the spans: every item neither, no base, and no look-up per item', async () => {
    // Entries outside the page's span, or of another store, are not the page's.
    const db = await seeded({ queued: [['other', 'b'], [STORE, 'z']], bases: [['a', { etag: 'e' }]] })
    const spies = perKeyReads()
    expect(await stateOf(db, ['d', 'b', 'c'])).toEqual(Array(3).fill({ queued: false, rejected: false, refused: false, base: undefined }))
    expect(callsOf(spies)).toBe(0)
    db.close()
  })

  test('spans with few entries are read whole: each item gets its own, others in the span are left out', async () => {
    const db = await seeded({
      queued: [[STORE, 'b'], ['other', 'd']],
      rejected: ['f'],
      // 'c' lies in the span but is not in the page; 'd' is a bare `_etag` of an older version.
      bases: [['b', { etag: 'eb', pk: 't1' }], ['c', { etag: 'ec' }], ['d', 'ed']],
    })
    const spies = perKeyReads()
    expect(await stateOf(db, ['f', 'b', 'd'])).toEqual([
      { queued: false, rejected: true, refused: false, base: undefined },
      { queued: true, rejected: false, refused: false, base: { etag: 'eb', pk: 't1' } },
      { queued: false, rejected: false, refused: false, base: { etag: 'ed' } },
    ])
    expect(callsOf(spies)).toBe(0)
    db.close()
  })

  test('a span crowded with other items is looked up item by item, with the same answers', async () => {
    const crowd = Array.from({ length: 10 }, (_, i) => `m${i}`)
    const db = await seeded({
      queued: [[STORE, 'a'], ...crowd.map((id): [string, string] => [STORE, id])],
      rejected: ['z', ...crowd],
      bases: [['z', 'ez'], ...crowd.map((id): [string, unknown] => [id, { etag: id }])],
    })
    const spies = perKeyReads()
    expect(await stateOf(db, ['z', 'a'])).toEqual([
      { queued: false, rejected: true, refused: false, base: { etag: 'ez' } },
      { queued: true, rejected: false, refused: false, base: undefined },
    ])
    expect(callsOf(spies)).toBeGreaterThan(0)
    db.close()
  })
})
