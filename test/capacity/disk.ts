/**
 * A disk with room for a number of records, for quota tests where no real quota can be set
 * (Node's fake-indexeddb) or where one would be too slow to fill: `put` and `add` beyond the room
 * throw `QuotaExceededError`, as a browser's write at a full disk fails, and each `delete` gives
 * one record's room back (unless `deletesFree: false`: Chromium's LevelDB before it compacts).
 * Writes of an aborted transaction give their room back. The library's
 * settings store is not counted. Patches this realm's `IDBObjectStore` (purge inline, not in a
 * worker, so that deletions are seen) and, in browsers, `navigator.storage.estimate()`, which
 * reports the records in use (a full disk whose usage never drops stops evicting).
 */
import { afterEach } from 'vitest'

export interface Disk {
  /** Records that still fit. */
  room: number
}

const restorers: (() => void)[] = []

export function smallDisk(room: number, { deletesFree = true } = {}): Disk {
  const disk = { room }
  const estimate = async () => ({ usage: room - disk.room, quota: room })
  if (globalThis.navigator?.storage) {
    const storage = globalThis.navigator.storage
    storage.estimate = estimate
    restorers.push(() => void Reflect.deleteProperty(storage, 'estimate'))
  } else if (globalThis.navigator) {
    Object.defineProperty(globalThis.navigator, 'storage', { value: { estimate }, configurable: true })
    restorers.push(() => void Reflect.deleteProperty(globalThis.navigator, 'storage'))
  } else {
    // Node 20 has no navigator; the library only reads `navigator.storage` and `navigator.locks`.
    Object.defineProperty(globalThis, 'navigator', { value: { storage: { estimate } }, configurable: true })
    restorers.push(() => void Reflect.deleteProperty(globalThis, 'navigator'))
  }
  const proto = IDBObjectStore.prototype
  const { put, add, delete: remove } = proto
  const used = new WeakMap<IDBTransaction, number>()
  const refund = (tx: IDBTransaction) => {
    disk.room += used.get(tx) ?? 0
    used.set(tx, 0)
  }
  const consume = (store: IDBObjectStore) => {
    const tx = store.transaction
    if (disk.room <= 0) {
      // The refused transaction is over for the writer (the library aborts it at once), as a
      // browser's would be when its error arrives: its room is back before anyone looks.
      refund(tx)
      throw new DOMException('The disk is full (test disk)', 'QuotaExceededError')
    }
    disk.room--
    if (!used.has(tx)) tx.addEventListener('abort', () => refund(tx))
    used.set(tx, (used.get(tx) ?? 0) + 1)
  }
  const counted = <F extends (...args: any[]) => IDBRequest>(original: F) =>
    function (this: IDBObjectStore, ...args: Parameters<F>) {
      if (this.name !== '__idb_ttl_meta') consume(this)
      return original.apply(this, args)
    }
  proto.put = counted(put)
  proto.add = counted(add)
  proto.delete = function (this: IDBObjectStore, query: IDBValidKey | IDBKeyRange) {
    if (this.name !== '__idb_ttl_meta' && deletesFree) disk.room++
    return remove.call(this, query)
  }
  restorers.push(() => Object.assign(proto, { put, add, delete: remove }))
  return disk
}

afterEach(() => {
  for (const restore of restorers.splice(0)) restore()
})
