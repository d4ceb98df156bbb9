/**
 * `sliding-get`: point reads of live items on a `touchOnRead` store, where every read records a
 * touch (written later, in batches), against the same reads on a plain store with the same data.
 */
import { dataset, liveKeys, NOW } from '../data.js'
import { atMost, compareAll, medianTime, ratioRow, trial, type Row } from '../harness.js'
import { openOurs, STORE, type Ours } from '../ours.js'

type Check = (value: unknown) => boolean

export async function slidingGet(): Promise<Row[]> {
  const data = dataset(1000, 0)
  const keys = liveKeys(data, 500)
  const stamp = (value: unknown) => (value as { _ts?: number } | undefined)?._ts
  // A sliding read returns the item touched at the read's time; a plain one as last written.
  const touched: Check = (value) => stamp(value) === NOW / 1000
  const untouched: Check = (value) => (stamp(value) ?? Infinity) < NOW / 1000
  const reads = (check: Check) => (db: Ours) => medianTime(keys.length, (i) => db.get(STORE, keys[i]), check)
  const sliding = trial(() => openOurs(data, { mode: 'off' }, { touchOnRead: true }), reads(touched))
  const plain = trial(() => openOurs(data), reads(untouched))
  const [c] = await compareAll(sliding, [plain], { maxPairs: 30 })
  return [ratioRow('sliding-get', 'the same get on a plain store', 'ms p50', c, atMost(1.3, 'plain get'))]
}
