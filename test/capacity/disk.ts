/**
 * A disk with room for a number of records, for quota tests where no real quota can be set
 * (Node's fake-indexeddb) or where one would be too slow to fill: `put` and `add` beyond the room
 * throw `QuotaExceededError`, as a browser's write at a full disk fails, and each `delete` gives
 * one record's room back (unless `deletesFree: false`: Chromium's LevelDB before it compacts).
 * Deleting a database gives back the room of every record written to it. Writes of an aborted
 * transaction give their room back. The library's settings store is not counted, nor are rows
 * that refer to a value kept in a generation (`$gen`): next to their values they take nothing.
 * Patches this realm's `IDBObjectStore` and `indexedDB.deleteDatabase` (purge inline, not in a
 * worker, so that deletions are seen) and `navigator.storage.estimate()`, which reports records
 * in use and room as {@link RECORD_BYTES} each (a full disk whose usage never drops stops
 * evicting; generations are a sixteenth of the quota). `quota`, in records, is what it reports
 * as the quota (the room unless given): a large one lets a generation hold many values. The room
 * of a deleted database comes back once `roomBack()` resolves (at once unless given): Chromium
 * gives it back after a while, at times more than a second.
 */
import { afterEach } from 'vitest'

export interface Disk {
  /** Records that still fit. */
  room: number
}

/** What `estimate()` counts a record as. */
export const RECORD_BYTES = 256

const restorers: (() => void)[] = []

export function smallDisk(room: number, { deletesFree = true, quota = room, roomBack = async () => {} } = {}): Disk {
  const disk = { room }
  const estimate = async () => ({ usage: (room - disk.room) * RECORD_BYTES, quota: quota * RECORD_BYTES })
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
  const byDatabase = new Map<string, number>()
  const count = (dbName: string, records: number) => byDatabase.set(dbName, (byDatabase.get(dbName) ?? 0) + records)
  const refund = (tx: IDBTransaction) => {
    disk.room += used.get(tx) ?? 0
    count(tx.db.name, -(used.get(tx) ?? 0))
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
    count(tx.db.name, 1)
    if (!used.has(tx)) tx.addEventListener('abort', () => refund(tx))
    used.set(tx, (used.get(tx) ?? 0) + 1)
  }
  const referring = (value: unknown) => typeof value === 'object' && value !== null && '$gen' in value
  const counted = <F extends (...args: any[]) => IDBRequest>(original: F) =>
    function (this: IDBObjectStore, ...args: Parameters<F>) {
      if (this.name !== '__idb_ttl_meta' && !referring(args[0])) consume(this)
      return original.apply(this, args)
    }
  proto.put = counted(put)
  proto.add = counted(add)
  proto.delete = function (this: IDBObjectStore, query: IDBValidKey | IDBKeyRange) {
    // Rows of a store that keeps its values in generations take nothing, so free nothing.
    if (this.name !== '__idb_ttl_meta' && !this.indexNames.contains('$gen') && deletesFree) {
      disk.room++
      count(this.transaction.db.name, -1)
    }
    return remove.call(this, query)
  }
  const factory = Object.getPrototypeOf(indexedDB) as IDBFactory
  const { deleteDatabase } = factory
  factory.deleteDatabase = function (this: IDBFactory, name: string) {
    const request = deleteDatabase.call(this, name)
    request.addEventListener('success', () => {
      const freed = byDatabase.get(name) ?? 0
      byDatabase.delete(name)
      void roomBack().then(() => (disk.room += freed))
    })
    return request
  }
  restorers.push(() => Object.assign(proto, { put, add, delete: remove }))
  restorers.push(() => Object.assign(factory, { deleteDatabase }))
  return disk
}

afterEach(() => {
  for (const restore of restorers.splice(0)) restore()
})
