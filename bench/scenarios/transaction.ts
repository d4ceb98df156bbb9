/**
 * Reads of another store while a readwrite `db.transaction` is open (SPEC §11: a transaction
 * never delays reads or writes of stores it does not name), against the same reads with no
 * transaction open.
 */
import { unwrap } from 'idb'
import { dataset, liveKeys } from '../data.js'
import { atMost, compareBy, percentile, ratioRow, REFERENCE, roundTrials, trial, type Row } from '../harness.js'
import { openOurs, OTHER, STORE, type Ours } from '../ours.js'

const held = dataset(10, 0)
const otherData = dataset(1000, 0, { seed: 3 })
const keys = liveKeys(otherData, 1000)
/**
 * The most requests the open transaction makes: reads that waited for it would wait for ever
 * (it stays open until they are done), so it ends after about as long as the reads take tens of
 * times over, and their times show the wait.
 */
const HOLD_REQUESTS = 100_000

interface ReadTimes {
  mean: number
  p99: number
}

/** Sequential `get`s of live items of the other store; the mean and p99 per read. */
async function readOther(db: Ours): Promise<ReadTimes> {
  const times: number[] = []
  for (const key of keys) {
    const start = performance.now()
    if ((await db.get(OTHER, key)) === undefined) throw new Error('a read of a live item found nothing')
    times.push(performance.now() - start)
  }
  return { mean: times.reduce((a, b) => a + b, 0) / times.length, p99: percentile(times, 99) }
}

/**
 * Keeps `tx` open by a chain of gets on `store`, each made when the last succeeds, until `done()`
 * (or {@link HOLD_REQUESTS}). Native requests: the chain costs the page as little as it can.
 */
function holdOpen(tx: IDBTransaction, store: string, done: () => boolean): Promise<void> {
  const key = held.live[0].id
  return new Promise((resolve) => {
    let requests = 0
    const next = () => (done() || ++requests >= HOLD_REQUESTS ? resolve() : (tx.objectStore(store).get(key).onsuccess = next))
    next()
  })
}

/** The reads, made once a transaction over the first store holds it; `open` opens it and runs the callback in it. */
async function readBeside(open: (callback: (tx: IDBTransaction) => Promise<ReadTimes>) => Promise<ReadTimes>, db: Ours): Promise<ReadTimes> {
  return open(async (tx) => {
    let reading = true
    const reads = readOther(db).finally(() => (reading = false))
    await holdOpen(tx, STORE, () => !reading)
    return reads
  })
}

/** A readwrite `db.transaction` over the first store. */
const ours = (db: Ours) => readBeside((callback) => db.transaction(STORE, 'readwrite', (tx) => callback(tx.raw)), db)

/** A readwrite IndexedDB transaction over the first store alone (what any open transaction costs the reads). */
const rawTransaction = (db: Ours) =>
  readBeside(async (callback) => {
    const tx = unwrap(db.raw).transaction(STORE, 'readwrite')
    const [result] = await Promise.all([callback(tx), new Promise((resolve) => (tx.oncomplete = resolve))])
    return result
  }, db)

export async function readsOtherStoreDuringTransaction(): Promise<Row[]> {
  const open = () => openOurs(held, undefined, {}, otherData)
  const trials = await roundTrials(trial(open, ours), [trial(open, readOther), trial(open, rawTransaction)], (t) => t.mean, {
    minPairs: 6,
    maxPairs: 20,
  })
  const id = 'reads-other-store-during-transaction'
  const alone = 'same reads, no transaction open'
  const beside = 'same reads beside a raw readwrite transaction over the first store alone'
  return [
    ratioRow(id, alone, 'ms per read (mean)', compareBy(trials, 0, (t) => t.mean), atMost(1.1, 'baseline')),
    ratioRow(id, alone, 'ms p99', compareBy(trials, 0, (t) => t.p99), REFERENCE),
    ratioRow(id, beside, 'ms per read (mean)', compareBy(trials, 1, (t) => t.mean), REFERENCE),
  ]
}
