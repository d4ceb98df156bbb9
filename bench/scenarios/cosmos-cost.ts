/**
 * What a pull round of the Cosmos DB mirror costs when little changed (issue #43's targets):
 * requests and documents read, counted at the page's `fetch` (the SDK's requests; the documents
 * of each query's answer by its `x-ms-item-count`, which the bench server exposes). Counts, not
 * times: one run each.
 *
 * - an idle round after a 1,000-item import (one query, an empty answer);
 * - an idle round at 10,000 items where deletes are plain (`softDelete: false`): a count of the
 *   scope, not a list of its ids.
 */
import { syncCosmos, type SyncOptions } from '../../src/cosmos/index.js'
import { openTtlDB } from '../../src/index.js'
import { freshName } from '../data.js'
import type { Row } from '../harness.js'
import { bulkUpsert, cosmosItem, newContainer } from '../peers/cosmos.js'
import { deleteDatabase } from '../peers/raw.js'

/** More than the seconds a round leaves the last second it read to be read again (`pull.ts` SETTLE_S). */
const SETTLE_MS = 3500

interface Cost {
  requests: number
  queries: number
  documents: number
}

/** What `run` asks of the server through `fetch`: requests, queries among them, documents in the answers. */
async function counted(run: () => Promise<unknown>): Promise<Cost> {
  const original = globalThis.fetch
  const cost: Cost = { requests: 0, queries: 0, documents: 0 }
  globalThis.fetch = async (input, init) => {
    const request = new Request(input, init)
    cost.requests++
    const query = request.headers.get('x-ms-documentdb-isquery') !== null && request.headers.get('x-ms-cosmos-is-query-plan-request')?.toLowerCase() !== 'true'
    const answer = await original(input, init)
    if (query) {
      cost.queries++
      cost.documents += Number(answer.headers.get('x-ms-item-count') ?? 0)
    }
    return answer
  }
  try {
    await run()
  } finally {
    globalThis.fetch = original
  }
  return cost
}

/**
 * The cost of an idle round of a mirror of `count` items, right after the pull that brought them,
 * which came a few seconds after their import (as a round on a timer does): a pull within
 * SETTLE_S of a write reads that second again at its next round.
 */
async function idleRound(count: number, options: SyncOptions): Promise<Cost> {
  const { container, drop } = await newContainer()
  const name = freshName('cosmos-cost')
  const db = await openTtlDB(name, { version: 1, stores: { items: { keyPath: 'id', mirror: true } }, purge: { mode: 'off' } })
  const sync = syncCosmos(db, 'items', container, options)
  try {
    await bulkUpsert(container, Array.from({ length: count }, (_, i) => cosmosItem(i)))
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
    const pulled = await sync.pull()
    if (pulled !== count) throw new Error(`the first pull brought ${pulled} of ${count} items`)
    return await counted(() => sync.pull())
  } finally {
    sync.stop()
    db.close()
    await deleteDatabase(name)
    await drop()
  }
}

const row = (what: string, cost: Cost, target: string, pass: boolean): Row => ({
  id: 'cosmos-round-cost',
  ours: cost.documents,
  peer: null,
  peerName: `${cost.requests} requests, ${cost.queries} of them queries`,
  unit: `documents read by ${what}`,
  ratio: null,
  target,
  pass,
})

export async function cosmosRoundCost(): Promise<Row[]> {
  const idle = await idleRound(1000, {})
  const plain = await idleRound(10_000, { softDelete: false })
  return [
    row('an idle round after a 1,000-item import', idle, 'one query, an empty answer', idle.queries === 1 && idle.documents === 0),
    row('an idle round at 10,000 items, deletes plain', plain, 'not proportional to the items: a count (≤ 2 queries, ≤ 1 document)', plain.queries <= 2 && plain.documents <= 1),
  ]
}
