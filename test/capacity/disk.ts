/**
 * A disk with room for a number of records, for quota tests where no real quota can be set
 * (Node's fake-indexeddb) or where one would be too slow to fill: `put` and `add` beyond the room
 * throw `QuotaExceededError`, as a browser's write at a full disk fails, and each `delete` gives
 * one record's room back. Writes of an aborted transaction give their room back. The library's
 * settings store is not counted. Patches this realm's `IDBObjectStore`: purge inline, not in a
 * worker, so that deletions are seen.
 */
import { afterEach } from 'vitest'

export interface Disk {
  /** Records that still fit. */
  room: number
}

const restorers: (() => void)[] = []

export function smallDisk(room: number): Disk {
  const disk = { room }
  const proto = IDBObjectStore.prototype
  const { put, add, delete: remove } = proto
  const used = new WeakMap<IDBTransaction, number>()
  const consume = (store: IDBObjectStore) => {
    if (disk.room <= 0) throw new DOMException('The disk is full (test disk)', 'QuotaExceededError')
    disk.room--
    const tx = store.transaction
    if (!used.has(tx)) tx.addEventListener('abort', () => (disk.room += used.get(tx) ?? 0))
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
    if (this.name !== '__idb_ttl_meta') disk.room++
    return remove.call(this, query)
  }
  restorers.push(() => Object.assign(proto, { put, add, delete: remove }))
  return disk
}

afterEach(() => {
  for (const restore of restorers.splice(0)) restore()
})
