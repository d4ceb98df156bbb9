/**
 * `capped-writes-10k`: a stream of 10,000 single puts into a store with `maxEntries: 1000`, the
 * purge worker trimming it as the writes wake it, against the same stream into an uncapped store
 * (same worker, same data). Then how many background slices, once the stream stopped, it takes
 * to bring the store back to at most 1000 live items (target: one).
 */
import { dataset, item } from '../data.js'
import { atMost, compareBy, oursAtMost, ratioRow, roundTrials, trial, type Row } from '../harness.js'
import { openOurs, STORE, type Ours } from '../ours.js'

const WRITES = 10_000
const MAX_ENTRIES = 1000

interface Stream {
  ms: number
  /** Background slices after the last write until the store held at most MAX_ENTRIES. */
  slicesAfter: number
}

/** Times the stream; with a cap, waits for the trim and counts the slices it took. */
async function stream(db: Ours, capped: boolean): Promise<Stream> {
  const values = Array.from({ length: WRITES }, (_, i) => item(i))
  const started = performance.now()
  for (const value of values) await db.put(STORE, value)
  const ms = performance.now() - started
  let slicesAfter = 0
  const off = db.onPurge((report) => void (report.store === STORE && slicesAfter++))
  try {
    const deadline = performance.now() + 30_000
    while (capped && (await db.raw.count(STORE)) > MAX_ENTRIES) {
      if (performance.now() > deadline) throw new Error('the capped store was not trimmed within 30 s of the stream')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  } finally {
    off()
  }
  return { ms, slicesAfter }
}

export async function cappedWrites(): Promise<Row[]> {
  const empty = dataset(0, 0)
  const worker = { mode: 'worker' as const }
  const capped = trial(() => openOurs(empty, worker, { maxEntries: MAX_ENTRIES }), (db) => stream(db, true))
  const uncapped = trial(() => openOurs(empty, worker), (db) => stream(db, false))
  const trials = await roundTrials(capped, [uncapped], (t) => t.ms, { minPairs: 4, maxPairs: 6, warmup: false })
  const c = compareBy(trials, 0, (t) => t.ms)
  const slices = compareBy({ ours: trials.ours, peers: [trials.ours] }, 0, (t) => t.slicesAfter)
  return [
    ratioRow('capped-writes-10k', 'the same puts, uncapped store', 'ms', c, atMost(1.15, 'uncapped')),
    {
      id: 'capped-trim-after-stream',
      ours: slices.ours,
      peer: null,
      peerName: '',
      unit: 'slices (median)',
      ratio: null,
      target: '≤ 1 slice after the stream',
      pass: oursAtMost(1, '').pass(NaN, slices.ours),
    },
  ]
}
