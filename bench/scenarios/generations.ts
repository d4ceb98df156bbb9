/**
 * A store with `evictOnQuota`, whose values live in generation databases (README, "Capacity and
 * quota"): a point read and a single put each take a second transaction, on the generation's
 * database. Reported against raw IndexedDB (in Firefox such a store keeps its values in rows).
 */
import { dataset, item, liveKeys, NOW } from '../data.js'
import { compareAll, medianTime, ratioRow, REFERENCE, trial, type Row } from '../harness.js'
import { openOurs, STORE } from '../ours.js'
import * as raw from '../peers/raw.js'

const always = () => true

export async function generations(): Promise<Row[]> {
  const data = dataset(1000, 0)
  const keys = liveKeys(data, 500)
  const found = (value: unknown) => value !== undefined
  const gens = () => openOurs(data, { mode: 'off' }, { evictOnQuota: true })
  const get = trial(gens, (db) => medianTime(keys.length, (i) => db.get(STORE, keys[i]), found))
  const rawGet = trial(() => raw.openRaw(data), (db) => medianTime(keys.length, (i) => raw.getLive(db, keys[i], NOW), found))
  const [vsGet] = await compareAll(get, [rawGet], { maxPairs: 30 })
  const fresh = Array.from({ length: 300 }, (_, i) => item(1000 + i))
  const put = trial(gens, (db) => medianTime(fresh.length, (i) => db.put(STORE, fresh[i]), always))
  const rawPut = trial(() => raw.openRaw(data), (db) => medianTime(fresh.length, (i) => raw.put(db, raw.expiring(fresh[i], NOW)), always))
  const [vsPut] = await compareAll(put, [rawPut], { maxPairs: 30 })
  return [
    ratioRow('generations', 'get: raw get + expiresAt check', 'ms p50', vsGet, REFERENCE),
    ratioRow('generations', 'put: raw put, 1 index', 'ms p50', vsPut, REFERENCE),
  ]
}
