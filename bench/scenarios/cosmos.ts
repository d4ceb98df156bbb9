/**
 * The Cosmos DB mirror against the SDK's own bulk calls on the same in-process server (see
 * `scripts/cosmos-server.mjs`): a pull of 10,000 items into an empty store, a push of 1,000
 * local writes into an empty container, and a push of an offline queue of 10,000 (against the
 * same at 1,000, per record: is it linear?). Seeding is the SDK's bulk call, outside the timed part.
 * A trial takes seconds: one ABBA pair of rounds, after a warm-up on a few items (the SDK's
 * code paths, the server's compiled queries) rather than a whole round.
 */
import type { Container } from '@azure/cosmos'
import { syncCosmos, type CosmosSync } from '../../src/cosmos/index.js'
import { PAGE } from '../../src/cosmos/pull.js'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { dataset, freshName } from '../data.js'
import { atMost, compareAll, medianTime, ratioRow, REFERENCE, trial, type Comparison, type Fresh, type Row, type Target, type Trial } from '../harness.js'
import { bulkUpsert, cosmosItem, newContainer, readAll, writeRaw, type CosmosBenchItem } from '../peers/cosmos.js'
import { deleteDatabase, openRaw } from '../peers/raw.js'

const PULLED = 10_000
const PUSHED = 1_000
const QUEUED = 10_000
const WARM_UP = 200
const ROUNDS = { minPairs: 2, maxPairs: 2, warmup: false }
/** The queue's trials take seconds, not tens: two ABBA pairs, for an interval narrower than one pair's. */
const QUEUE_ROUNDS = { minPairs: 4, maxPairs: 4, warmup: false }

interface Mirrored {
  db: TtlDB
  sync: CosmosSync
}

/** A fresh mirrored store (declared as docs/cosmos.md says) of the whole of `container`. */
async function openMirror(container: Container): Promise<Fresh<Mirrored>> {
  const name = freshName('cosmos')
  const db = await openTtlDB(name, { version: 1, stores: { items: { keyPath: 'id', keepTs: true } }, purge: { mode: 'off' } })
  const sync = syncCosmos(db, 'items', container)
  const drop = async () => {
    sync.stop()
    db.close()
    await deleteDatabase(name)
  }
  return { db: { db, sync }, drop }
}

/** A new container seeded with items 0 … count-1 by the SDK's bulk call. */
async function seededContainer(count: number): Promise<{ container: Container; drop: () => Promise<void> }> {
  const seeded = await newContainer()
  await bulkUpsert(seeded.container, Array.from({ length: count }, (_, i) => cosmosItem(i)))
  return seeded
}

/** Each trial once, untimed. */
async function warmUp(trials: Trial[]): Promise<void> {
  for (const t of trials) {
    const { run, drop } = await t()
    try {
      await run()
    } finally {
      await drop()
    }
  }
}

const perSecond = (count: number, ms: number) => Math.round((count * 1000) / ms).toLocaleString('en-US')

/** A row in ms for `count` items, with both sides' items per second in its unit. */
function rateRow(id: string, peerName: string, count: number, c: Comparison, target: Target): Row {
  const unit = `ms per ${count.toLocaleString('en-US')} items (ours ${perSecond(count, c.ours)} items/s, peer ${perSecond(count, c.peer)} items/s)`
  return ratioRow(id, peerName, unit, c, target)
}

/**
 * Ours, then the SDK reading the same pages as the mirror (its query, in pages of its size:
 * without `maxItemCount` this server answers every item in one page, which no account does) and
 * writing them to raw IndexedDB. The
 * read alone is not a row: it costs a trial's time again (this server scans the container for
 * every page) and differs from it by one transaction.
 */
function pullTrials(container: Container, count: number): Trial[] {
  const all = (pulled: number) => pulled === count
  const ours = trial(() => openMirror(container), ({ sync }) => medianTime(1, () => sync.pull(), all))
  const readAndWrite = trial(
    () => openRaw(dataset(0, 0)),
    (db) =>
      medianTime(
        1,
        async () => {
          const items = await readAll(container, PAGE)
          await writeRaw(db, items)
          return items.length
        },
        all,
      ),
  )
  return [ours, readAndWrite]
}

export async function cosmosPull(): Promise<Row[]> {
  const small = await seededContainer(WARM_UP)
  await warmUp(pullTrials(small.container, WARM_UP)).finally(small.drop)
  const seeded = await seededContainer(PULLED)
  try {
    const [ours, readAndWrite] = pullTrials(seeded.container, PULLED)
    const [vsReadWrite] = await compareAll(ours, [readAndWrite], ROUNDS)
    return [rateRow('cosmos-pull-10k', `SDK query (the mirror's, in its pages of ${PAGE}) + raw IndexedDB puts in 1 transaction`, PULLED, vsReadWrite, atMost(1.2, 'the SDK + raw IndexedDB'))]
  } finally {
    await seeded.drop()
  }
}

/**
 * Ours, then the SDK's bulk upsert; each into a new container, each trial's time divided by
 * `per` (1: ms for all). Ours pushes in one round what was written locally before it (untimed):
 * a queue written offline, in `putAll`s of at most 1,000 items.
 */
function pushTrials(items: CosmosBenchItem[], per = 1): Trial[] {
  const all = (pushed: number) => pushed === items.length
  const ours = trial(
    async () => {
      const target = await newContainer()
      const mirror = await openMirror(target.container)
      for (let i = 0; i < items.length; i += 1000) await mirror.db.db.putAll('items', items.slice(i, i + 1000))
      return { db: mirror.db, drop: async () => (await mirror.drop(), await target.drop()) }
    },
    async ({ sync }) => (await medianTime(1, () => sync.push(), all)) / per,
  )
  const bulk = trial(
    async () => {
      const { container, drop } = await newContainer()
      return { db: container, drop }
    },
    async (container) => (await medianTime(1, () => bulkUpsert(container, items), all)) / per,
  )
  return [ours, bulk]
}

export async function cosmosPush(): Promise<Row[]> {
  const items = Array.from({ length: PUSHED }, (_, i) => cosmosItem(i))
  await warmUp(pushTrials(items.slice(0, WARM_UP / 4)))
  const [ours, bulk] = pushTrials(items)
  const [vsBulk] = await compareAll(ours, [bulk], ROUNDS)
  return [rateRow('cosmos-push-1k', 'SDK executeBulkOperations, 1,000 upserts', PUSHED, vsBulk, atMost(3, 'the SDK'))]
}

/**
 * A queue of 10,000 records written offline, pushed in one round, in ms per record: against the
 * same queue of 1,000 (linear within 1.2×), and against the SDK's bulk upsert of the 10,000.
 */
export async function cosmosQueue(): Promise<Row[]> {
  const items = Array.from({ length: QUEUED }, (_, i) => cosmosItem(i))
  await warmUp(pushTrials(items.slice(0, WARM_UP / 4)))
  const [long, bulk] = pushTrials(items, QUEUED)
  const [short] = pushTrials(items.slice(0, PUSHED), PUSHED)
  const [vsShort, vsBulk] = await compareAll(long, [short, bulk], QUEUE_ROUNDS)
  const unit = 'ms per record'
  return [
    ratioRow('cosmos-queue-10k', `ours, a queue of 1,000 records (per record: linear within 1.2×)`, unit, vsShort, atMost(1.2, 'the 1,000 queue per record')),
    ratioRow('cosmos-queue-10k', 'SDK executeBulkOperations, 10,000 upserts', `${unit} (ours ${perSecond(QUEUED, vsBulk.ours * QUEUED)} items/s, peer ${perSecond(QUEUED, vsBulk.peer * QUEUED)} items/s)`, vsBulk, REFERENCE),
  ]
}
