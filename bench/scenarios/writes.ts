/**
 * Scenario 2: single puts, a 1000-item batch, and a transaction of writes over two stores, each
 * against stores with one expiry index.
 */
import { dataset, item, NOW, type Item } from '../data.js'
import { atMost, compareAll, FASTER, medianTime, ratioRow, trial, type Row } from '../harness.js'
import { openOurs, OTHER, STORE, type Ours } from '../ours.js'
import * as dexie from '../peers/dexie.js'
import * as raw from '../peers/raw.js'

const always = () => true

export async function putSingle(): Promise<Row[]> {
  const seeded = dataset(1000, 0)
  const fresh = Array.from({ length: 300 }, (_, i) => item(1000 + i))
  const ours = trial(() => openOurs(seeded), (db) => medianTime(fresh.length, (i) => db.put(STORE, fresh[i]), always))
  const floor = trial(
    () => raw.openRaw(seeded),
    (db) => medianTime(fresh.length, (i) => raw.put(db, raw.expiring(fresh[i], NOW)), always),
  )
  const [vsRaw] = await compareAll(ours, [floor], { maxPairs: 30 })
  return [ratioRow('put-single', 'raw put, 1 index', 'ms p50', vsRaw, atMost(1.1, 'raw'))]
}

export async function putBatch(): Promise<Row[]> {
  const empty = dataset(0, 0)
  const batches: Item[][] = Array.from({ length: 3 }, (_, b) => Array.from({ length: 1000 }, (_, i) => item(b * 1000 + i)))
  const expiring = batches.map((batch) => batch.map((i) => raw.expiring(i, NOW)))
  const all = (keys: unknown[]) => keys.length === 1000
  const ours = trial(() => openOurs(empty), (db) => medianTime(batches.length, (b) => db.putAll(STORE, batches[b]), all))
  const floor = trial(() => raw.openRaw(empty), (db) => medianTime(batches.length, (b) => raw.putMany(db, expiring[b]), always))
  const bulkPut = trial(
    () => dexie.openDexie(empty),
    (db) => medianTime(batches.length, (b) => db.items.bulkPut(expiring[b], { allKeys: true }), all),
  )
  const [vsRaw, vsDexie] = await compareAll(ours, [floor, bulkPut], { maxPairs: 30 })
  return [
    ratioRow('put-batch-1000', 'raw puts in 1 transaction, 1 index', 'ms', vsRaw, atMost(1.15, 'raw')),
    ratioRow('put-batch-1000', 'Dexie bulkPut', 'ms', vsDexie, FASTER),
  ]
}

/** `db.transaction` of 5 puts into each of two stores, against raw IndexedDB's one transaction of the same puts. */
export async function transactionWrites(): Promise<Row[]> {
  const empty = dataset(0, 0)
  const rounds = Array.from({ length: 200 }, (_, r) => Array.from({ length: 10 }, (_, i) => item(r * 10 + i)))
  const expiring = rounds.map((round) => round.map((i) => raw.expiring(i, NOW)))
  const writeRound = (db: Ours, r: number) =>
    db.transaction([STORE, OTHER], 'readwrite', (tx) => Promise.all(rounds[r].map((value, i) => tx.put(i % 2 ? OTHER : STORE, value))))
  const ours = trial(() => openOurs(empty, undefined, undefined, empty), (db) => medianTime(rounds.length, (r) => writeRound(db, r), always))
  const floor = trial(
    () => raw.openRaw(empty, true),
    (db) => medianTime(rounds.length, (r) => raw.putAcross(db, expiring[r].filter((_, i) => !(i % 2)), expiring[r].filter((_, i) => i % 2)), always),
  )
  const [vsRaw] = await compareAll(ours, [floor], { maxPairs: 30 })
  return [ratioRow('transaction-10-writes', 'raw puts in 1 transaction over 2 stores', 'ms p50', vsRaw, atMost(1.15, 'raw'))]
}
