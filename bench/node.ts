/**
 * `npm run bench:node`: the wrapper's CPU overhead over raw IndexedDB calls, on fake-indexeddb
 * in Node (no disk, no browser: what remains is our JavaScript). A regression signal that runs
 * the same on any machine; the Chromium numbers are the real ones.
 */
import 'fake-indexeddb/auto'
import { dataset, item, liveKeys, NOW } from './data.js'
import { compareAll, medianTime, ratioRow, REFERENCE, trial, type Row } from './harness.js'
import { openOurs, STORE } from './ours.js'
import * as raw from './peers/raw.js'

/** Report-only: these figures track regressions of our JavaScript; the targets are Chromium's. */
const WITHIN = REFERENCE
const PEER = 'raw IndexedDB (fake-indexeddb)'
const OPTIONS = { minPairs: 6, maxPairs: 15 }
const always = () => true

export async function runNodeBench(): Promise<Row[]> {
  const seeded = dataset(1000, 0)
  const partlyExpired = dataset(1000, 200)
  const keys = liveKeys(seeded, 300)
  const fresh = Array.from({ length: 300 }, (_, i) => item(1000 + i))
  const batch = Array.from({ length: 1000 }, (_, i) => item(2000 + i))
  const found = (value: unknown) => value !== undefined

  const [get] = await compareAll(
    trial(() => openOurs(seeded), (db) => medianTime(keys.length, (i) => db.get(STORE, keys[i]), found)),
    [trial(() => raw.openRaw(seeded), (db) => medianTime(keys.length, (i) => raw.getLive(db, keys[i], NOW), found))],
    OPTIONS,
  )
  const [put] = await compareAll(
    trial(() => openOurs(seeded), (db) => medianTime(fresh.length, (i) => db.put(STORE, fresh[i]), always)),
    [trial(() => raw.openRaw(seeded), (db) => medianTime(fresh.length, (i) => raw.put(db, raw.expiring(fresh[i], NOW)), always))],
    OPTIONS,
  )
  const [putAll] = await compareAll(
    trial(() => openOurs(seeded), (db) => medianTime(3, () => db.putAll(STORE, batch), always)),
    [trial(() => raw.openRaw(seeded), (db) => medianTime(3, () => raw.putMany(db, batch.map((i) => raw.expiring(i, NOW))), always))],
    OPTIONS,
  )
  const [getAll] = await compareAll(
    trial(() => openOurs(partlyExpired), (db) => medianTime(5, () => db.getAll(STORE), (v) => v.length === 800)),
    [trial(() => raw.openRaw(seeded), (db) => medianTime(5, () => raw.getAll(db), (v) => v.length === 1000))],
    OPTIONS,
  )
  return [
    ratioRow('node get-live', `${PEER} get + expiresAt check`, 'ms p50', get, WITHIN),
    ratioRow('node put-single', `${PEER} put, 1 index`, 'ms p50', put, WITHIN),
    ratioRow('node put-batch-1000', `${PEER} puts in 1 transaction`, 'ms', putAll, WITHIN),
    ratioRow('node getall-1000-20pct-expired', `${PEER} getAll, nothing expired`, 'ms', getAll, WITHIN),
  ]
}
