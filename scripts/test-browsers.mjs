// `npm run test:browser`: the browser test files in Chromium, Firefox, WebKit (IndexedDB in memory,
// driven by WebDriver) and WebKit with IndexedDB on disk (no WebDriver), then the end-to-end tests,
// each in a Vitest process of its own and one after another. On a 2-core machine, engines side by
// side starve each other (the demo e2e timed out beside the Chromium project).
// Every run goes ahead even when an earlier one failed; the closing table has one line per run.
// Arguments are passed on to each Vitest run (a file filter, for instance).
import { execFileSync, spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { CHROMIUM_PATH } from './chromium.mjs'
import { FIREFOX_PATH } from './browsers.mjs'

const RUNS = ['chromium', 'firefox', 'webkit', 'webkit-disk', 'e2e']

function version(command, args) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim().split('\n')[0]
  } catch {
    return 'unknown'
  }
}
const webkitGtk = version('dpkg-query', ['-W', '-f=${Version}', 'libwebkit2gtk-4.1-0'])
const versions = {
  chromium: version(CHROMIUM_PATH, ['--version']),
  firefox: version(FIREFOX_PATH, ['--version']),
  webkit: `WebKitGTK ${webkitGtk}, IndexedDB in memory (automated MiniBrowser)`,
  'webkit-disk': `WebKitGTK ${webkitGtk}, IndexedDB on disk (SQLite; MiniBrowser without WebDriver)`,
  e2e: 'the demo (all of it in Chromium, a load-and-purge check in Firefox and WebKit), a full disk (Chromium, Firefox) for a store and for the caches of idb-ttl/workbox, and a browser restart (WebKit on disk)',
}

const vitest = join('node_modules', '.bin', 'vitest')
const results = []
for (const project of RUNS) {
  console.log(`\n=== ${project}: ${versions[project]} ===`)
  const started = Date.now()
  const { status } = spawnSync(vitest, ['run', '--project', project, ...process.argv.slice(2)], { stdio: 'inherit' })
  results.push({ project, ok: status === 0, seconds: Math.round((Date.now() - started) / 1000) })
}

console.log('\nBrowser suites:')
for (const { project, ok, seconds } of results) {
  console.log(`  ${project.padEnd(11)} ${ok ? 'passed' : 'FAILED'} in ${seconds} s  (${versions[project]})`)
}
process.exit(results.every((r) => r.ok) ? 0 : 1)
