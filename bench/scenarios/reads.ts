/** Scenarios 1, 3, 4: point reads, `getAll` over partly expired data, `count` by the expiry index. */
import { dataset, liveKeys, NOW } from '../data.js'
import { atMost, compareAll, medianTime, ratioRow, REFERENCE, timesFaster, trial, type Row } from '../harness.js'
import { openOurs, STORE } from '../ours.js'
import * as dexie from '../peers/dexie.js'
import { countByReading, cursorFilter } from '../peers/naive.js'
import * as raw from '../peers/raw.js'

export async function getLive(): Promise<Row[]> {
  const data = dataset(1000, 0)
  const keys = liveKeys(data, 500)
  const found = (value: unknown) => value !== undefined
  const ours = trial(() => openOurs(data), (db) => medianTime(keys.length, (i) => db.get(STORE, keys[i]), found))
  const floor = trial(() => raw.openRaw(data), (db) => medianTime(keys.length, (i) => raw.getLive(db, keys[i], NOW), found))
  const dexieGet = trial(() => dexie.openDexie(data), (db) => medianTime(keys.length, (i) => dexie.getLive(db, keys[i], NOW), found))
  const judged = trial(() => raw.openRaw(data, false, true), (db) => medianTime(keys.length, (i) => raw.getJudged(db, keys[i], NOW), found))
  const [vsRaw, vsDexie, vsJudged] = await compareAll(ours, [floor, dexieGet, judged], { maxPairs: 30 })
  return [
    ratioRow('get-live', 'raw get + expiresAt check', 'ms p50', vsRaw, atMost(1.1, 'raw')),
    ratioRow('get-live', 'Dexie table.get + expiresAt check', 'ms p50', vsDexie, atMost(1.1, 'Dexie')),
    ratioRow('get-live', 'raw get + settings get, 1 transaction', 'ms p50', vsJudged, atMost(1.15, 'raw judged')),
  ]
}

export async function getAllPartlyExpired(): Promise<Row[]> {
  const data = dataset(1000, 200)
  const nothingExpired = dataset(1000, 0)
  const live = (values: unknown[]) => values.length === 800
  const ours = trial(() => openOurs(data), (db) => medianTime(10, () => db.getAll(STORE), live))
  const floor = trial(() => raw.openRaw(nothingExpired), (db) => medianTime(10, () => raw.getAll(db), (v) => v.length === 1000))
  const naive = trial(() => raw.openRaw(data), (db) => medianTime(10, () => cursorFilter(db, NOW), live))
  const [vsRaw, vsNaive] = await compareAll(ours, [floor, naive], { maxPairs: 30 })
  return [
    ratioRow('getall-1000-20pct-expired', 'raw getAll, nothing expired', 'ms', vsRaw, atMost(1.25, 'raw')),
    ratioRow('getall-1000-20pct-expired', 'cursor + filter', 'ms', vsNaive, timesFaster(1.5)),
  ]
}

/**
 * `count` once the purger has caught up (1% of the store expired on disk) against IndexedDB's
 * own `store.count()` of the same store; and the worst case, half the store expired and not
 * purged yet (Chromium's `count` walks the range it counts), reported against reading it all.
 */
export async function countHalfExpired(): Promise<Row[]> {
  const caughtUp = dataset(100_000, 1_000)
  const ours = trial(() => openOurs(caughtUp), (db) => medianTime(5, () => db.count(STORE), (n) => n === 99_000))
  const plain = trial(() => raw.openRaw(caughtUp), (db) => medianTime(5, () => raw.count(db), (n) => n === 100_000))
  const [vsCount] = await compareAll(ours, [plain], { minPairs: 4, maxPairs: 6, warmup: false })
  const data = dataset(100_000, 50_000)
  const half = (n: number) => n === 50_000
  const worst = trial(() => openOurs(data), (db) => medianTime(5, () => db.count(STORE), half))
  const naive = trial(() => raw.openRaw(data), (db) => medianTime(3, () => countByReading(db, NOW), half))
  const [c] = await compareAll(worst, [naive], { minPairs: 4, maxPairs: 4, warmup: false })
  return [
    ratioRow('count-100k-1pct-expired', 'raw store.count(), same store', 'ms', vsCount, atMost(1.3, 'raw count')),
    ratioRow('count-100k-half-expired', 'getAll + filter', 'ms', c, REFERENCE),
  ]
}
