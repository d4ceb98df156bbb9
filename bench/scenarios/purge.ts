/**
 * Scenarios 5 and 6: `purgeExpired` deleting 10k dead items of 50k in the purge worker (batched,
 * resuming), against the hand-written ways; then page reads while that purge runs.
 */
import { dataset, liveKeys, NOW } from '../data.js'
import {
  atMost,
  compareBy,
  comparePairs,
  medianTime,
  oursAtMost,
  pairTrials,
  percentile,
  ratioRow,
  REFERENCE,
  timesFaster,
  type Comparison,
  type Row,
  type Target,
} from '../harness.js'
import { openLongTaskWindow } from '../longtasks.js'
import { STORE, withOurs, type Ours } from '../ours.js'
import { purgeIndexCursor, purgeKeyPerTransaction } from '../peers/naive.js'
import * as raw from '../peers/raw.js'

/** The purge worker, with no background wake-up inside a trial: only the timed purge runs. */
const WORKER = { mode: 'worker', maxIntervalMs: 86_400_000 } as const
const DEAD = 10_000
const data = dataset(50_000, DEAD)
const all = (deleted: number) => deleted === DEAD

export async function purge(): Promise<Row[]> {
  const contiguous = dataset(50_000, DEAD, { contiguous: true })
  const once = (purge: () => Promise<number>) => medianTime(1, purge, all)
  const ours = () => withOurs(data, (db) => once(() => db.purgeExpired(STORE)), WORKER)
  const floor = () => raw.withRaw(data, (db) => once(() => raw.purgeByIndexKeys(db, NOW)))
  const perKey = () => raw.withRaw(data, (db) => once(() => purgeKeyPerTransaction(db, NOW)))
  const cursor = () => raw.withRaw(data, (db) => once(() => purgeIndexCursor(db, NOW)))
  const keyRange = () =>
    raw.withRaw(contiguous, (db) => medianTime(1, () => raw.purgeByKeyRange(db, IDBKeyRange.upperBound(DEAD - 1)), () => true))
  const few = { minPairs: 3, maxPairs: 5, tolerance: 0.3 }
  const row = (peerName: string, c: Comparison, target: Target) => ratioRow('purge-10k-of-50k', peerName, 'ms', c, target)
  return [
    row('getAllKeys(range) + delete, 1 transaction', await comparePairs(ours, floor, { minPairs: 4, maxPairs: 10, tolerance: 0.2 }), atMost(1.5, 'raw')),
    row('1 transaction per key (workbox)', await comparePairs(ours, perKey, few), timesFaster(3)),
    row('index cursor.delete()', await comparePairs(ours, cursor, few), timesFaster(2)),
    row('primary-key range delete (dead keys contiguous)', await comparePairs(ours, keyRange, few), REFERENCE),
  ]
}

interface ReadStats {
  p50: number
  p99: number
  longTasks: number
}

/** Sequential `get`s of live items while `more(i)` holds; the per-read times and long tasks. */
async function readLoop(db: Ours, more: (i: number) => boolean): Promise<ReadStats> {
  const keys = liveKeys(data, 1000)
  const window = openLongTaskWindow()
  const times: number[] = []
  for (let i = 0; more(i); i++) {
    const start = performance.now()
    await db.get(STORE, keys[i % keys.length])
    times.push(performance.now() - start)
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), longTasks: await window.close() }
}

export async function readsDuringPurge(): Promise<Row[]> {
  const during = () =>
    withOurs(
      data,
      async (db) => {
        let purging = true
        const purged = db.purgeExpired(STORE).finally(() => (purging = false))
        const stats = await readLoop(db, () => purging)
        if (!all(await purged)) throw new Error('the purge under reads deleted the wrong number of items')
        return stats
      },
      WORKER,
    )
  const baseline = () => withOurs(data, (db) => readLoop(db, (i) => i < 1000), WORKER)
  const trials = await pairTrials(during, baseline, (s) => s.p50, { minPairs: 4, maxPairs: 8, tolerance: 0.2 })
  const id = 'reads-during-purge'
  const peerName = 'same reads, no purge'
  const sum = (values: ReadStats[]) => values.reduce((total, s) => total + s.longTasks, 0)
  const longTasks = sum(trials.ours)
  return [
    ratioRow(id, peerName, 'ms p50', compareBy(trials, (s) => s.p50), atMost(1.5, 'baseline')),
    ratioRow(id, peerName, 'ms p99', compareBy(trials, (s) => s.p99), oursAtMost(20, 'p99 ≤ 20 ms')),
    {
      id,
      ours: longTasks,
      peer: sum(trials.peer),
      peerName,
      unit: 'long tasks (all trials)',
      ratio: null,
      target: '0 long tasks on the page',
      pass: longTasks === 0,
      pairs: trials.ours.length,
    },
  ]
}
