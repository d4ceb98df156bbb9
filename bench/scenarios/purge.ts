/**
 * Scenarios 5 and 6: `purgeExpired` deleting 10k dead items of 50k in the purge worker (batched,
 * resuming), against the hand-written ways; then page reads while that purge runs.
 */
import { dataset, liveKeys, NOW } from '../data.js'
import {
  atMost,
  compareAll,
  compareBy,
  medianTime,
  oursAtMost,
  percentile,
  ratioRow,
  REFERENCE,
  roundTrials,
  timesFaster,
  trial,
  type Comparison,
  type Row,
  type Target,
} from '../harness.js'
import { openLongTaskWindow } from '../longtasks.js'
import { openOurs, OTHER, STORE, type Ours } from '../ours.js'
import { purgeIndexCursor, purgeKeyPerTransaction } from '../peers/naive.js'
import * as raw from '../peers/raw.js'

/** The purge worker, with no background wake-up inside a trial: only the timed purge runs. */
const WORKER = { mode: 'worker', maxIntervalMs: 86_400_000 } as const
const DEAD = 10_000
const data = dataset(50_000, DEAD)
const all = (deleted: number) => deleted === DEAD
/**
 * Ours: a background slice that was already due when the clock moved to NOW may take part of the
 * work alongside the timed purge; what counts is that the dead are gone (checked on disk after).
 */
const some = (deleted: number) => deleted > 0 && deleted <= DEAD
const LIVE = 50_000 - DEAD

export async function purge(): Promise<Row[]> {
  const contiguous = dataset(50_000, DEAD, { contiguous: true })
  const once = (purge: () => Promise<number>) => medianTime(1, purge, all)
  const ours = trial(
    () => openOurs(data, WORKER),
    async (db) => {
      const ms = await medianTime(1, () => db.purgeExpired(STORE), some)
      if ((await db.raw.count(STORE)) !== LIVE) throw new Error('the purge left dead items on disk')
      return ms
    },
  )
  const floor = trial(() => raw.openRaw(data), (db) => once(() => raw.purgeByIndexKeys(db, NOW)))
  const perKey = trial(() => raw.openRaw(data), (db) => once(() => purgeKeyPerTransaction(db, NOW)))
  const cursor = trial(() => raw.openRaw(data), (db) => once(() => purgeIndexCursor(db, NOW)))
  const keyRange = trial(
    () => raw.openRaw(contiguous),
    (db) => medianTime(1, () => raw.purgeByKeyRange(db, IDBKeyRange.upperBound(DEAD - 1)), () => true),
  )
  const [vsFloor, vsPerKey, vsCursor, vsKeyRange] = await compareAll(ours, [floor, perKey, cursor, keyRange], {
    minPairs: 4,
    maxPairs: 6,
    tolerance: 0.2,
    warmup: false,
  })
  const row = (peerName: string, c: Comparison, target: Target) => ratioRow('purge-10k-of-50k', peerName, 'ms', c, target)
  return [
    row('getAllKeys(range) + delete, 1 transaction', vsFloor, atMost(1.5, 'raw')),
    row('1 transaction per key (workbox)', vsPerKey, timesFaster(3)),
    row('index cursor.delete()', vsCursor, timesFaster(2)),
    row('primary-key range delete (dead keys contiguous)', vsKeyRange, REFERENCE),
  ]
}

interface ReadStats {
  p50: number
  p99: number
  longTasks: number | null
}

/** Sequential `get`s of live items of `store` (holding `seeded`) while `more(i)` holds; the per-read times and long tasks. */
async function readLoop(db: Ours, more: (i: number) => boolean, store = STORE, seeded = data): Promise<ReadStats> {
  const keys = liveKeys(seeded, 1000)
  const window = openLongTaskWindow()
  const times: number[] = []
  for (let i = 0; more(i); i++) {
    const start = performance.now()
    await db.get(store, keys[i % keys.length])
    times.push(performance.now() - start)
  }
  return { p50: percentile(times, 50), p99: percentile(times, 99), longTasks: await window.close() }
}

/** The second store's content, for reads beside the purge of the first. */
const otherData = dataset(1000, 0, { seed: 3 })

/** The database the worker purges, and the one the reads go to (the same one, or another). */
interface Pair {
  purged: Ours
  read: Ours
}

/** Where the reads go: the store being purged, another store of its database, another database. */
type ReadsGo = 'same store' | 'other store' | 'other database'

async function openPair(go: ReadsGo): Promise<{ db: Pair; drop: () => Promise<void> }> {
  const purged = await openOurs(data, WORKER, {}, go === 'other store' ? otherData : undefined)
  if (go !== 'other database') return { db: { purged: purged.db, read: purged.db }, drop: purged.drop }
  const read = await openOurs(otherData)
  return { db: { purged: purged.db, read: read.db }, drop: async () => (await purged.drop(), await read.drop()) }
}

/**
 * Reads while the worker purges 10k dead items of the first store, against the same reads with
 * no purge: p50 and p99 ratios, and the page's long tasks.
 */
async function readsBesidePurge(id: string, go: ReadsGo, p99Target: Target): Promise<Row[]> {
  const [readStore, seeded] = go === 'same store' ? [STORE, data] : go === 'other store' ? [OTHER, otherData] : [STORE, otherData]
  const during = trial(
    () => openPair(go),
    async ({ purged, read }) => {
      let purging = true
      const purge = purged.purgeExpired(STORE).finally(() => (purging = false))
      const stats = await readLoop(read, () => purging, readStore, seeded)
      if (!some(await purge) || (await purged.raw.count(STORE)) !== LIVE) {
        throw new Error('the purge under reads left dead items on disk')
      }
      return stats
    },
  )
  const baseline = trial(() => openPair(go), ({ read }) => readLoop(read, (i) => i < 1000, readStore, seeded))
  const trials = await roundTrials(during, [baseline], (s) => s.p50, { minPairs: 4, maxPairs: 6, tolerance: 0.2, warmup: false })
  const peerName = 'same reads, no purge'
  const sum = (values: ReadStats[]) =>
    values.some((s) => s.longTasks === null) ? null : values.reduce((total, s) => total + (s.longTasks ?? 0), 0)
  const longTasks = sum(trials.ours)
  const p99 = compareBy(trials, 0, (s) => s.p99)
  return [
    ratioRow(id, peerName, 'ms p50', compareBy(trials, 0, (s) => s.p50), atMost(1.5, 'baseline')),
    ratioRow(id, peerName, 'ms p99', p99, p99Target),
    {
      id,
      ours: longTasks,
      peer: sum(trials.peers[0]),
      peerName,
      unit: 'long tasks (all trials)',
      ratio: null,
      target: longTasks === null ? 'not measurable here (no longtask entries)' : '0 long tasks on the page',
      pass: longTasks === null || longTasks === 0,
      pairs: trials.ours.length,
    },
  ]
}

/** Reads of the store being purged. */
export function readsDuringPurge(): Promise<Row[]> {
  return readsBesidePurge('reads-during-purge', 'same store', oursAtMost(20, 'p99 ≤ 20 ms'))
}

/** Reads of another store while one store purges: the purge must not stall them (p99). */
export function readsOtherStoreDuringPurge(): Promise<Row[]> {
  return readsBesidePurge('reads-other-store-during-purge', 'other store', atMost(1.5, 'baseline'))
}

/**
 * Reads of a store of another database while one purges: what a purge costs reads that share
 * nothing with it in IndexedDB (the CPU, the browser's storage thread), beside the row above.
 */
export function readsOtherDatabaseDuringPurge(): Promise<Row[]> {
  return readsBesidePurge('reads-other-db-during-purge', 'other database', REFERENCE)
}
