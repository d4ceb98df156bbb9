/**
 * `live-expiry-lateness`: how long after an item of its result expires a live query emits the
 * result without it, on an idle page, in real time (SPEC §11: 95% within 100 ms). Like
 * `expire-lateness` it runs on the real clock and waits: what it measures is the live query's own
 * timer, set from the first expiry among its items. Default purge options, the purge in its worker.
 */
import { openTtlDB } from '../../src/index.js'
import { freshName } from '../data.js'
import { percentile, type Row } from '../harness.js'
import { deleteDatabase } from '../peers/raw.js'

const STORE = 'items'
const ITEMS = 60
/** Writes are spread over this long, so the items' `_ts` (whole seconds) differ too. */
const WRITE_SPREAD_MS = 1000
const TRIALS = 3
/** After the last expiry, how long a trial waits for stragglers before counting them missing. */
const GRACE_MS = 5_000

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface Item {
  id: number
  _ts: number
  ttl: number
}

/** One fresh database: 60 items with ttls 2–4 s under one live query (the writes end before the first expires: an idle page); the lateness of each one's leaving. */
async function trial(): Promise<{ late: number[]; missing: number }> {
  const name = freshName('live-lateness')
  const db = await openTtlDB(name, { version: 1, stores: { [STORE]: { keyPath: 'id', defaultTtl: -1 } }, purge: { mode: 'worker' } })
  const late: number[] = []
  let shown = new Map<number, Item>()
  const off = db.live(STORE).subscribe((items) => {
    const receivedAt = Date.now()
    const now = new Map((items as Item[]).map((item) => [item.id, item]))
    for (const [id, item] of shown) if (!now.has(id)) late.push(receivedAt - (item._ts + item.ttl) * 1000)
    shown = now
  })
  try {
    for (let i = 0; i < ITEMS; i++) {
      await db.put(STORE, { id: i, ttl: 2 + (i % 3) })
      await sleep(WRITE_SPREAD_MS / ITEMS)
    }
    const lastExpiry = (Math.floor(Date.now() / 1000) + 4) * 1000
    while (late.length < ITEMS && Date.now() < lastExpiry + GRACE_MS) await sleep(100)
    return { late, missing: ITEMS - late.length }
  } finally {
    off()
    db.close()
    await deleteDatabase(name)
  }
}

export async function liveExpiryLateness(): Promise<Row[]> {
  const late: number[] = []
  let missing = 0
  for (let t = 0; t < TRIALS; t++) {
    const result = await trial()
    late.push(...result.late)
    missing += result.missing
  }
  const id = 'live-expiry-lateness'
  const peerName = `db.live, ${TRIALS} × ${ITEMS} items, ttl 2–4 s, idle page`
  const row = (ours: number, unit: string, target: string, pass: boolean): Row =>
    ({ id, ours, peer: null, peerName, unit, ratio: null, target, pass })
  const p95 = percentile(late, 95)
  return [
    row(percentile(late, 50), 'ms p50 after expiry', 'report only', true),
    row(p95, 'ms p95 after expiry', 'p95 ≤ 100 ms (SPEC §11)', p95 <= 100),
    row(Math.max(...late), 'ms max after expiry', 'report only', true),
    row(missing, `items not dropped (of ${TRIALS * ITEMS})`, '0', missing === 0),
  ]
}
