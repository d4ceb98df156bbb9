// Scenario `size`: bytes shipped, min+gzip, as size-limit measures them (`.size-limit.js`: our
// entries and worker as built in dist/, and the peers' whole packages), turned into result rows.
// Issue #33's targets are reported against everything an entry's app loads (what it loads later
// with `import()` included): 6 kB for the whole library, `idb-ttl`; 10 kB for an app of the basic
// calls, `idb-ttl/core`. Issue #44's first loads come from Vite builds of the minimal apps of
// test/consumer/app/ against dist/ (scripts/first-load.mjs: the entry chunk and the chunks it
// imports statically): 9 kB for `idb-ttl/core`, 14 kB for `idb-ttl`; every chunk of the latter
// together (size-limit) no more than before (34.2 kB); 9.2 kB for the purge worker. Then a row per feature, what it adds to an app of
// `idb-ttl/core` (scripts/size-features.mjs: none can be added alone, so the first of them is what
// switching to `idb-ttl` adds, and each feature's is its own code's share of that).
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { repoFirstLoads } from './first-load.mjs'
import { featureSizes } from './size-features.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))
const FIRST_LOAD_TARGET = 6000
const CORE_TARGET = 10_000
/** Issue #44's target for the purge worker, which the worker loads at idle, not the page (#33's was 8 kB). */
const WORKER_TARGET = 9200
/** Issue #44's: the first loads, and all the chunks of `idb-ttl` together (its size before #44). */
const FIRST_LOAD_TARGETS = { core: 9000, full: 14_000, fullAll: 34_200 }

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
    ...against(main, 'bytes min+gzip, every chunk of idb-ttl (loaded first or later)', FIRST_LOAD_TARGET),
    ...against(core, 'bytes min+gzip, an app of idb-ttl/core (get, put, delete, getAll, count, the background purge)', CORE_TARGET),
    ...(await firstLoadRows(row, main.size)),
    row(worker.size, null, '—', 'bytes min+gzip, purge worker', `≤ ${WORKER_TARGET / 1000} kB`, worker.size <= WORKER_TARGET),
    ...(await featureRows(cosmos.size, row)),
  ]
}

/**
 * Issue #44's rows: the first load of each page entry's minimal app in a Vite build, and `all`,
 * every chunk of `idb-ttl` together as size-limit weighs it (as 34.2 kB was measured before #44).
 */
async function firstLoadRows(row, all) {
  const { core, full } = await repoFirstLoads()
  const target = (bytes, limit) => [`≤ ${limit / 1000} kB`, bytes <= limit]
  const vite = 'a Vite build of test/consumer/app/'
  return [
    row(core.bytes, null, '—', `bytes min+gzip, first load of idb-ttl/core (${vite}core.ts: the entry chunk and its static imports)`, ...target(core.bytes, FIRST_LOAD_TARGETS.core)),
    row(full.bytes, null, '—', `bytes min+gzip, first load of idb-ttl (${vite}full.ts: the entry chunk and its static imports)`, ...target(full.bytes, FIRST_LOAD_TARGETS.full)),
    row(all, null, '—', "bytes min+gzip, every chunk of idb-ttl together (size-limit, as before #44)", ...target(all, FIRST_LOAD_TARGETS.fullAll)),
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
