/**
 * Issue #14, costs flat in store size: a purge, an open and a point read on a 200k-item store
 * against the same on a small one (the open: against idb's own `openDB` of the same database).
 * Seeding 200k items takes about 30 s here, so each scenario seeds its stores once and its
 * trials reuse them.
 */
import { openDB } from 'idb'
import { openTtlDB, type PurgeOptions } from '../../src/index.js'
import { META_STORE } from '../../src/layout/expiry-index.js'
import { dataset, freshName, liveKeys, manualClock, NOW, writeBatches, type Dataset } from '../data.js'
import { atMost, compareAll, compareBy, medianTime, percentile, ratioRow, REFERENCE, roundTrials, trial, type Row, type Trial } from '../harness.js'
import { ITEMS, openOurs, settle, STORE, type Ours } from '../ours.js'
import { deleteDatabase } from '../peers/raw.js'

const BIG = 200_000
/** The purge worker, with no background wake-up inside a trial: only the timed purge runs. */
const WORKER = { mode: 'worker', maxIntervalMs: 86_400_000 } as const

const open = (name: string, clock: () => number, purge: PurgeOptions) =>
  openTtlDB(name, { version: 1, stores: { [STORE]: ITEMS }, clock, purge })

/** Writes `data` into database `name` (created if need be) as {@link openOurs} seeds it. */
async function write(name: string, data: Dataset): Promise<void> {
  const clock = manualClock()
  const db = await open(name, clock, { mode: 'off' })
  try {
    for (const { at, items } of writeBatches(data)) {
      clock.set(at)
      await db.putAll(STORE, items)
    }
  } finally {
    db.close()
  }
}

/** A trial that runs on a database the scenario prepared once and keeps. */
const again = <T>(run: () => Promise<T>): Trial<T> => async () => ({ run, drop: async () => {} })

/**
 * Milliseconds per deleted item of `purgeExpired` on a store of `count` items, 10% dead. The live
 * 90% are written once; each trial writes the dead tenth back (they were written long ago: a
 * handle of their own, its clock at their time), opens the purging handle before they die and
 * lets its start-up slices find nothing, then moves its clock to NOW and times the purge.
 */
function purgeTenth(name: string, data: Dataset): Trial {
  const dead = { dead: data.dead, live: [] }
  return trial(
    async () => {
      await write(name, dead)
      const clock = manualClock()
      const db = await open(name, clock, WORKER)
      await settle(db)
      clock.set(NOW)
      return { db, drop: async () => db.close() }
    },
    async (db) => {
      const started = performance.now()
      const deleted = await db.purgeExpired(STORE)
      const ms = performance.now() - started
      if (deleted !== data.dead.length || (await db.raw.count(STORE)) !== data.live.length) {
        throw new Error(`the purge deleted ${deleted} of ${data.dead.length} dead items`)
      }
      return ms / deleted
    },
  )
}

/** `purge-flat-200k`: 20,000 dead items purged from 200,000 against 2,000 from 20,000, per item deleted. */
export async function purgeFlat(): Promise<Row[]> {
  const stores = [BIG, BIG / 10].map((count) => ({ name: freshName('flat'), data: dataset(count, count / 10) }))
  try {
    for (const { name, data } of stores) await write(name, { dead: [], live: data.live })
    const [big, small] = stores.map(({ name, data }) => purgeTenth(name, data))
    const [c] = await compareAll(big, [small], { minPairs: 6, maxPairs: 10, tolerance: 0.15, warmup: false })
    const us = { ...c, ours: c.ours * 1000, peer: c.peer * 1000 }
    return [ratioRow('purge-flat-200k', '10% of a 20k-item store', 'µs per deleted item', us, atMost(1.3, 'the 20k store'))]
  } finally {
    for (const { name } of stores) await deleteDatabase(name)
  }
}

/** Median ms of `reps` opens; `connect` resolves to the closer, called untimed. */
function opens(reps: number, connect: () => Promise<() => void>): () => Promise<number> {
  return async () => {
    const times: number[] = []
    for (let i = 0; i < reps; i++) {
      const started = performance.now()
      const close = await connect()
      times.push(performance.now() - started)
      close()
      // The closed connection, and the purge lock it asked for, go before the next open.
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return percentile(times, 50)
  }
}

/**
 * `open-200k`: `openTtlDB` on an existing 200k-item database against idb's `openDB` of it (same
 * version, no upgrade). Ours as the browser gets it by default (the purge worker: its scheduler
 * asks for the purge lock, the worker starts later) and with the purge off; and, to show that
 * nothing at open grows with the store, ours (default) against ours on a 1k-item database, beside
 * what the engine's own open of the one costs against the other (idb's `openDB`); and ours on the
 * 1k-item database against idb's `openDB` of it (issue #44: ≤ 1.2× at 1k and at 200k), beside what
 * the engine charges for the one read an open makes after opening (`openDB` then a `get` of the
 * settings store, against `openDB` alone). Both
 * databases are seeded once; every trial reopens them.
 */
export async function open200k(): Promise<Row[]> {
  const [big, small] = [freshName('flat'), freshName('flat')]
  try {
    await write(big, dataset(BIG, 0))
    await write(small, dataset(1000, 0))
    const ours = (name: string, purge: PurgeOptions = {}) =>
      opens(20, async () => {
        const db = await open(name, Date.now, purge)
        return () => db.close()
      })
    const idb = opens(20, async () => {
      const db = await openDB(big, 1)
      return () => db.close()
    })
    const idbSmall = opens(20, async () => {
      const db = await openDB(small, 1)
      return () => db.close()
    })
    // The engine's cost of what an open must do after opening: read the declared stores' settings.
    const idbSmallRead = opens(20, async () => {
      const db = await openDB(small, 1)
      await db.get(META_STORE, STORE)
      return () => db.close()
    })
    const same = (ms: number) => ms
    const peers = [again(idb), again(ours(big, { mode: 'off' })), again(ours(small)), again(idbSmall), again(idbSmallRead)]
    const trials = await roundTrials(again(ours(big)), peers, same, { maxPairs: 12 })
    const off = compareBy({ ours: trials.peers[1], peers: [trials.peers[0]] }, 0, same)
    const engineGrowth = compareBy({ ours: trials.peers[0], peers: [trials.peers[3]] }, 0, same)
    const small1k = compareBy({ ours: trials.peers[2], peers: [trials.peers[3]] }, 0, same)
    const readAfterOpen = compareBy({ ours: trials.peers[4], peers: [trials.peers[3]] }, 0, same)
    const peer = 'idb openDB, same database and version'
    return [
      ratioRow('open-200k', `${peer} (ours: default purge, worker)`, 'ms p50', compareBy(trials, 0, same), atMost(1.2, 'openDB')),
      ratioRow('open-200k', `${peer} (ours: purge off)`, 'ms p50', off, atMost(1.2, 'openDB')),
      ratioRow('open-200k', 'idb openDB of the 1k-item database (ours: default purge, worker, on it)', 'ms p50', small1k, atMost(1.2, 'openDB')),
      ratioRow('open-200k', 'openTtlDB of a 1k-item database', 'ms p50', compareBy(trials, 2, same), atMost(1.1, 'the 1k database')),
      ratioRow('open-200k', 'the engine alone: idb openDB of the 200k database against the 1k one', 'ms p50', engineGrowth, REFERENCE),
      ratioRow('open-200k', 'the engine alone: idb openDB of the 1k-item database, then one get of its settings store (the read an open makes), against openDB alone', 'ms p50', readAfterOpen, REFERENCE),
    ]
  } finally {
    for (const name of [big, small]) await deleteDatabase(name)
  }
}

/**
 * `get-200k`: `get` of live keys in a 200k-item store against a 1k-item one. Each trial reads
 * 500 keys of its own (a new seed), so the big store's reads are not the same cached few.
 */
export async function get200k(): Promise<Row[]> {
  const stores: { db: Ours; data: Dataset; drop: () => Promise<void> }[] = []
  for (const data of [dataset(BIG, 0), dataset(1000, 0)]) stores.push({ data, ...(await openOurs(data)) })
  let seed = 10
  const reads = ({ db, data }: (typeof stores)[number]) =>
    again(() => {
      const keys = liveKeys(data, 500, seed++)
      return medianTime(keys.length, (i) => db.get(STORE, keys[i]), (value) => value !== undefined)
    })
  try {
    const [c] = await compareAll(reads(stores[0]), [reads(stores[1])], { maxPairs: 30 })
    return [ratioRow('get-200k', 'the same get on a 1k-item store', 'ms p50', c, atMost(1.2, 'the 1k store'))]
  } finally {
    for (const { drop } of stores) await drop()
  }
}
