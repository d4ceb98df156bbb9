/**
 * The benchmark page. `scripts/bench.mjs` calls `runBench(ids)` and gets every scenario's rows;
 * progress goes to the console.
 */
import type { Row } from './harness.js'
import { cappedWrites } from './scenarios/capacity.js'
import { setDefaultTtl } from './scenarios/default-ttl.js'
import { get200k, open200k, purgeFlat } from './scenarios/flat.js'
import { purgeHeap } from './scenarios/heap.js'
import { generations } from './scenarios/generations.js'
import { expireLateness } from './scenarios/lateness.js'
import { liveExpiryLateness } from './scenarios/live.js'
import { purge, readsDuringPurge, readsOtherDatabaseDuringPurge, readsOtherStoreDuringPurge } from './scenarios/purge.js'
import { countHalfExpired, getAllPartlyExpired, getLive } from './scenarios/reads.js'
import { slidingGet } from './scenarios/sliding.js'
import { readsOtherStoreDuringTransaction } from './scenarios/transaction.js'
import { putBatch, putSingle, transactionWrites } from './scenarios/writes.js'

const scenarios: Record<string, () => Promise<Row[]>> = {
  'get-live': getLive,
  'put-single': putSingle,
  'put-batch-1000': putBatch,
  'transaction-10-writes': transactionWrites,
  'reads-other-store-during-transaction': readsOtherStoreDuringTransaction,
  'getall-1000-20pct-expired': getAllPartlyExpired,
  'count-100k-half-expired': countHalfExpired,
  'purge-10k-of-50k': purge,
  'reads-during-purge': readsDuringPurge,
  'reads-other-store-during-purge': readsOtherStoreDuringPurge,
  'reads-other-db-during-purge': readsOtherDatabaseDuringPurge,
  'set-default-ttl': setDefaultTtl,
  'sliding-get': slidingGet,
  'expire-lateness': expireLateness,
  'live-expiry-lateness': liveExpiryLateness,
  'capped-writes-10k': cappedWrites,
  'purge-flat-200k': purgeFlat,
  'open-200k': open200k,
  'get-200k': get200k,
  'purge-heap-50k': purgeHeap,
  generations,
  // Loaded when run: the other engines' pages never load the Cosmos DB SDK, nor Workbox.
  'cosmos-pull-10k': async () => (await import('./scenarios/cosmos.js')).cosmosPull(),
  'cosmos-push-1k': async () => (await import('./scenarios/cosmos.js')).cosmosPush(),
  'cosmos-queue-10k': async () => (await import('./scenarios/cosmos.js')).cosmosQueue(),
  'cosmos-round-cost': async () => (await import('./scenarios/cosmos-cost.js')).cosmosRoundCost(),
  'workbox-cachefirst-hit': async () => (await import('./scenarios/workbox.js')).cachedHit(),
  'workbox-purge-1k': async () => (await import('./scenarios/workbox.js')).purgeExpired(),
}

export interface PageResult {
  page: { userAgent: string; crossOriginIsolated: boolean; hardwareConcurrency: number }
  rows: Row[]
}

declare global {
  interface Window {
    runBench(ids: string[]): Promise<PageResult>
  }
}

window.runBench = async (ids) => {
  const unknown = ids.filter((id) => !(id in scenarios))
  if (unknown.length) throw new Error(`unknown scenarios: ${unknown.join(', ')}; known: ${Object.keys(scenarios).join(', ')}`)
  const rows: Row[] = []
  for (const [id, run] of Object.entries(scenarios)) {
    if (ids.length && !ids.includes(id)) continue
    const started = performance.now()
    console.log(`bench: ${id} …`)
    rows.push(...(await run()))
    console.log(`bench: ${id} done in ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  const { userAgent, hardwareConcurrency } = navigator
  return { page: { userAgent, crossOriginIsolated, hardwareConcurrency }, rows }
}
