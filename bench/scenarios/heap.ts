/**
 * `purge-heap-50k`: how much the JS heap grows while `purgeExpired` deletes 50,000 items, against
 * what a few batches of items take. The purge runs inline (`purge: { mode: 'inline' }`: the same
 * code as in the worker, src/worker/purge-api.ts), so the page's heap is the purge's heap.
 * Needs Chromium's `--enable-precise-memory-info` and `--js-flags=--expose-gc` (scripts/bench.mjs).
 */
import { DEFAULT_BATCH_SIZE } from '../../src/rules/purge-options.js'
import { dataset } from '../data.js'
import type { Row } from '../harness.js'
import { openOurs, STORE, type Ours } from '../ours.js'

const DEAD = 50_000
/** "A few batches": the heap a purge may hold, in batches of items, that the figures are set against. */
const BATCHES = 3
const MB = 1024 * 1024
/** A full GC takes 50–150 ms here: sampling more often than this starves the purge it measures. */
const GC_EVERY_MS = 250

const gc = (globalThis as { gc?: () => void }).gc

/** The heap in use now; `performance.memory` is a snapshot taken when it is read, so read it anew. */
function used(collect: boolean): number {
  const memory = (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory
  if (!memory || !gc) throw new Error('purge-heap-50k needs --enable-precise-memory-info and --js-flags=--expose-gc')
  if (collect) gc()
  return memory.usedJSHeapSize
}

/** The heap once garbage is gone: one GC leaves some (finalizers, weak wrappers) for the next. */
function settled(): number {
  for (let i = 0; i < 3; i++) used(true)
  return used(true)
}

/** Bytes an item takes on the heap as a purge reading values holds it (`_ts` and mark included). */
async function itemBytes(db: Ours): Promise<number> {
  const count = BATCHES * DEFAULT_BATCH_SIZE
  const before = settled()
  const held = await db.raw.getAll(STORE, null, count)
  return (settled() - before) / held.length
}

interface Growth {
  /** Highest heap sampled during the purge, less the heap before it (MB). */
  peak: number
  /** The heap after the purge, less the heap before it, both after a full GC (MB). */
  after: number
}

/**
 * One purge of a fresh store whose 50,000 items are all dead, the heap sampled every few ms.
 * With `collect`, each sample follows a full GC: the heap the purge keeps alive, not the garbage
 * it leaves for the young generation to sweep (which the plain samples include).
 */
async function purgeGrowth(collect: boolean, listen: boolean): Promise<Growth & { itemBytes: number }> {
  const { db, drop } = await openOurs(dataset(DEAD, DEAD), { mode: 'inline', maxIntervalMs: 86_400_000 })
  try {
    const bytes = await itemBytes(db)
    if (listen) db.onExpire(() => {})
    const before = settled()
    let peak = before
    const sampler = setInterval(() => (peak = Math.max(peak, used(collect))), collect ? GC_EVERY_MS : 5)
    const deleted = await db.purgeExpired(STORE).finally(() => clearInterval(sampler))
    if (deleted !== DEAD) throw new Error(`the purge deleted ${deleted} of ${DEAD} items`)
    peak = Math.max(peak, used(collect))
    return { peak: (peak - before) / MB, after: (settled() - before) / MB, itemBytes: bytes }
  } finally {
    await drop()
  }
}

export async function purgeHeap(): Promise<Row[]> {
  const runs = [
    { collect: true, listen: false, what: 'peak live heap (GC before each sample), key-only purge' },
    { collect: true, listen: true, what: 'peak live heap (GC before each sample), onExpire listening (values read)' },
    { collect: false, listen: false, what: 'peak used heap (no forced GC: garbage included), key-only purge' },
  ]
  const rows: Row[] = []
  for (const { collect, listen, what } of runs) {
    const growth = await purgeGrowth(collect, listen)
    const batches = (BATCHES * DEFAULT_BATCH_SIZE * growth.itemBytes) / MB
    rows.push({
      id: 'purge-heap-50k',
      ours: growth.peak,
      peer: batches,
      peerName: `${BATCHES} batches × ${DEFAULT_BATCH_SIZE} items × ${Math.round(growth.itemBytes)} B`,
      unit: `MB growth: ${what}; after the purge ${growth.after.toFixed(2)} MB`,
      ratio: growth.peak / batches,
      target: 'reported',
      pass: true,
    })
  }
  return rows
}
