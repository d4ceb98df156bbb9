/** Scenarios 1, 3, 4: point reads, `getAll` over partly expired data, `count` by the expiry index. */
import { dataset, liveKeys, NOW } from '../data.js'
import { atMost, comparePairs, medianTime, ratioRow, timesFaster, type Row } from '../harness.js'
import { STORE, withOurs } from '../ours.js'
import * as dexie from '../peers/dexie.js'
import { countByReading, cursorFilter } from '../peers/naive.js'
import * as raw from '../peers/raw.js'

export async function getLive(): Promise<Row[]> {
  const data = dataset(1000, 0)
  const keys = liveKeys(data, 300)
  const found = (value: unknown) => value !== undefined
  const ours = () => withOurs(data, (db) => medianTime(keys.length, (i) => db.get(STORE, keys[i]), found))
  const floor = () => raw.withRaw(data, (db) => medianTime(keys.length, (i) => raw.getLive(db, keys[i], NOW), found))
  const dexieGet = () => dexie.withDexie(data, (db) => medianTime(keys.length, (i) => dexie.getLive(db, keys[i], NOW), found))
  return [
    ratioRow('get-live', 'raw get + expiresAt check', 'ms p50', await comparePairs(ours, floor), atMost(1.15, 'raw')),
    ratioRow('get-live', 'Dexie table.get + expiresAt check', 'ms p50', await comparePairs(ours, dexieGet), atMost(1.1, 'Dexie')),
  ]
}

export async function getAllPartlyExpired(): Promise<Row[]> {
  const data = dataset(1000, 200)
  const nothingExpired = dataset(1000, 0)
  const live = (values: unknown[]) => values.length === 800
  const ours = () => withOurs(data, (db) => medianTime(10, () => db.getAll(STORE), live))
  const floor = () => raw.withRaw(nothingExpired, (db) => medianTime(10, () => raw.getAll(db), (v) => v.length === 1000))
  const naive = () => raw.withRaw(data, (db) => medianTime(10, () => cursorFilter(db, NOW), live))
  return [
    ratioRow('getall-1000-20pct-expired', 'raw getAll, nothing expired', 'ms', await comparePairs(ours, floor), atMost(1.25, 'raw')),
    ratioRow('getall-1000-20pct-expired', 'cursor + filter', 'ms', await comparePairs(ours, naive), timesFaster(1.5)),
  ]
}

export async function countHalfExpired(): Promise<Row[]> {
  const data = dataset(100_000, 50_000)
  const half = (n: number) => n === 50_000
  const ours = () => withOurs(data, (db) => medianTime(5, () => db.count(STORE), half))
  const naive = () => raw.withRaw(data, (db) => medianTime(3, () => countByReading(db, NOW), half))
  const c = await comparePairs(ours, naive, { minPairs: 3, maxPairs: 5, tolerance: 0.3 })
  return [ratioRow('count-100k-half-expired', 'getAll + filter', 'ms', c, timesFaster(10))]
}
