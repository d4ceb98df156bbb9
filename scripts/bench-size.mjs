// Scenario `size`: bytes shipped, min+gzip, as size-limit measures them (`.size-limit.js`: our
// entry and worker as built in dist/, and the peers' whole packages), turned into result rows.
// The first-load target (6 kB) is reported against the whole entry: nothing is loaded later.
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = fileURLToPath(new URL('..', import.meta.url))
const FIRST_LOAD_TARGET = 6000

/** The size rows of results.json. */
export async function measureSizes() {
  execFileSync(process.execPath, ['scripts/build-lib.mjs'], { cwd: repo, stdio: ['ignore', 'ignore', 'inherit'] })
  const bin = join(repo, 'node_modules', '.bin', 'size-limit')
  const checks = JSON.parse(execFileSync(bin, ['--json'], { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
  const [main, worker, ...peers] = checks
  const row = (ours, peer, peerName, unit, target, pass) => ({ id: 'size', ours, peer, peerName, unit, ratio: peer ? ours / peer : null, target, pass })
  return [
    ...peers.map((p) => row(main.size, p.size, p.name.replace(/^peer: /, ''), 'bytes min+gzip, all a page loads before openTtlDB resolves', `≤ ${FIRST_LOAD_TARGET / 1000} kB`, main.size <= FIRST_LOAD_TARGET)),
    row(worker.size, null, '—', 'bytes min+gzip, purge worker', 'reported', true),
  ]
}
