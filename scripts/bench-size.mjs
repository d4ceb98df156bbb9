// Scenario `size`: bytes shipped, min+gzip, as size-limit measures them (`.size-limit.js`: our
// entries and worker as built in dist/, and the peers' whole packages), turned into result rows.
// The first-load targets are reported against what a page loads before `openTtlDB` resolves
// (nothing is loaded later): 6 kB for the whole library, `idb-ttl`; issue #33's 10 kB for an app
// of the basic calls, `idb-ttl/core`.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const FIRST_LOAD_TARGET = 6000
const CORE_TARGET = 10_000

/** The size rows of results.json. */
export async function measureSizes() {
  execFileSync(process.execPath, ['scripts/build-lib.mjs'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] })
  const bin = join(repo, 'node_modules', '.bin', 'size-limit')
  const checks = JSON.parse(execFileSync(bin, ['--json'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
  // By name, not by place: .size-limit.js also weighs the other entries.
  const named = (start) => checks.find((check) => check.name.startsWith(start))
  const [main, core, worker] = [named('idb-ttl: '), named('idb-ttl/core: '), named("idb-ttl's purge worker")]
  const peers = checks.filter((check) => check.name.startsWith('peer: '))
  const row = (ours, peer, peerName, unit, target, pass) => ({ id: 'size', ours, peer, peerName, unit, ratio: peer ? ours / peer : null, target, pass })
  const against = (ours, unit, target) => peers.map((p) => row(ours.size, p.size, p.name.replace(/^peer: /, ''), unit, `≤ ${target / 1000} kB`, ours.size <= target))
  return [
    ...against(main, 'bytes min+gzip, all a page loads before openTtlDB resolves', FIRST_LOAD_TARGET),
    ...against(core, 'bytes min+gzip, an app of idb-ttl/core (get, put, delete, getAll, count, the background purge)', CORE_TARGET),
    row(worker.size, null, '—', 'bytes min+gzip, purge worker', 'reported', true),
  ]
}
