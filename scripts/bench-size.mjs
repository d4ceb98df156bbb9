// Scenario `size`: bytes shipped, min+gzip, as size-limit measures them (`.size-limit.js`: our
// entries and worker as built in dist/, and the peers' whole packages), turned into result rows.
// The first-load targets are reported against what a page loads before `openTtlDB` resolves
// (nothing is loaded later): 6 kB for the whole library, `idb-ttl`; issue #33's 10 kB for an app
// of the basic calls, `idb-ttl/core`; 8 kB for the purge worker. Then a row per feature, what it adds to an app of
// `idb-ttl/core` (scripts/size-features.mjs: none can be added alone, so the first of them is what
// switching to `idb-ttl` adds, and each feature's is its own code's share of that).
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { featureSizes } from './size-features.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
const FIRST_LOAD_TARGET = 6000
const CORE_TARGET = 10_000
/** Issue #33's target for the purge worker, which the worker loads, not the page. */
const WORKER_TARGET = 8000

/** The size rows of results.json. */
export async function measureSizes() {
  execFileSync(process.execPath, ['scripts/build-lib.mjs'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] })
  const bin = join(repo, 'node_modules', '.bin', 'size-limit')
  const checks = JSON.parse(execFileSync(bin, ['--json'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
  // By name, not by place: .size-limit.js also weighs the other entries.
  const named = (start) => checks.find((check) => check.name.startsWith(start))
  const [main, core, worker, cosmos] = [named('idb-ttl: '), named('idb-ttl/core: '), named("idb-ttl's purge worker"), named('idb-ttl/cosmos: ')]
  const peers = checks.filter((check) => check.name.startsWith('peer: '))
  const row = (ours, peer, peerName, unit, target, pass) => ({ id: 'size', ours, peer, peerName, unit, ratio: peer ? ours / peer : null, target, pass })
  const against = (ours, unit, target) => peers.map((p) => row(ours.size, p.size, p.name.replace(/^peer: /, ''), unit, `≤ ${target / 1000} kB`, ours.size <= target))
  return [
    ...against(main, 'bytes min+gzip, all a page loads before openTtlDB resolves', FIRST_LOAD_TARGET),
    ...against(core, 'bytes min+gzip, an app of idb-ttl/core (get, put, delete, getAll, count, the background purge)', CORE_TARGET),
    row(worker.size, null, '—', 'bytes min+gzip, purge worker', `≤ ${WORKER_TARGET / 1000} kB`, worker.size <= WORKER_TARGET),
    ...(await featureRows(cosmos.size, row)),
  ]
}

/** The rows of what each feature adds to an app of `idb-ttl/core`, with `cosmosEntry`, idb-ttl/cosmos's own bytes. */
async function featureRows(cosmosEntry, row) {
  const { full, core, features, allCuts } = await featureSizes()
  const reported = (bytes, unit) => row(bytes, null, '—', `bytes min+gzip, ${unit}`, 'reported', true)
  const own = (feature) => {
    const shared = feature.shared ? `; ${feature.shared.bytes.toLocaleString('en-US')} with the code it shares with ${feature.shared.with}` : ''
    return reported(feature.bytes, `${feature.name}: its own code, in idb-ttl only${shared}`)
  }
  const mirror = features.find((f) => f.id === 'mirror')
  return [
    reported(full - core, 'any feature below, to an app of idb-ttl/core: idb-ttl over idb-ttl/core ({ openTtlDB } of each, esbuild from src/)'),
    ...features.filter((f) => f.id !== 'mirror').map(own),
    reported(cosmosEntry + mirror.bytes, `the Cosmos DB mirror: idb-ttl/cosmos (${cosmosEntry.toLocaleString('en-US')}, size-limit; @azure/cosmos not included) and ${mirror.name} (${mirror.bytes.toLocaleString('en-US')}), to a page of idb-ttl`),
    reported(allCuts, 'all the features above cut out of idb-ttl together (what they share counted once)'),
  ]
}
