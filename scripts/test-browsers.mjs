// `npm run test:browser`: the browser test files in Chromium, Firefox, WebKit (IndexedDB in memory,
// driven by WebDriver) and WebKit with IndexedDB on disk (no WebDriver), then the end-to-end tests,
// each in a Vitest process of its own and one after another. On a 2-core machine, engines side by
// side starve each other (the demo e2e timed out beside the Chromium project).
// Every run goes ahead even when an earlier one failed; the closing table has one line per run.
// Arguments are passed on to each Vitest run (a file filter, for instance).
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
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

// Each run also writes Vitest's JUnit report, so the closing lines can name the tests that failed
// and say why: CI keeps only the tail of what a run prints, far from where a failure scrolled by.
// JUnit, not JSON: the JSON report keeps an error's stack, which in Firefox and WebKit is frames
// only, where JUnit keeps its message.
const reports = mkdtempSync(join(tmpdir(), 'idb-ttl-browser-reports-'))

const xmlText = (text) =>
  text.replace(/&(lt|gt|quot|apos|amp|#x[0-9a-fA-F]+|#\d+);/g, (_, entity) =>
    ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[entity] ??
    String.fromCodePoint(Number(entity[1] === 'x' ? `0${entity.slice(1)}` : entity.slice(1))))

/** The test cases a run's JUnit report marks failed, each with the first line of its message. */
function failuresOf(report) {
  if (!existsSync(report)) return ['(no report written: the run ended before its tests did)']
  const failed = []
  for (const [, attributes, body] of readFileSync(report, 'utf8').matchAll(/<testcase ([^>]*)>([\s\S]*?)<\/testcase>/g)) {
    const failure = /<failure(?: message="([^"]*)")?/.exec(body)
    if (!failure) continue
    const attribute = (key) => xmlText(new RegExp(`(?:^|\\s)${key}="([^"]*)"`).exec(attributes)?.[1] ?? '')
    const why = xmlText(failure[1] ?? '').split('\n')[0].slice(0, 300)
    const [file, name] = [attribute('classname'), attribute('name')]
    // A file that failed outside its tests (at import, say) is a case named for the file.
    failed.push(`${name === file ? file : `${file} > ${name}`}${why ? `: ${why}` : ''}`)
  }
  return failed.length > 0 ? failed : ['(its report names no failed test: an error outside the tests, or no test files; see its output above)']
}

const vitest = join('node_modules', '.bin', 'vitest')
const results = []
for (const project of RUNS) {
  console.log(`\n=== ${project}: ${versions[project]} ===`)
  const started = Date.now()
  const report = join(reports, `${project}.xml`)
  const args = ['run', '--project', project, '--reporter=default', '--reporter=junit', `--outputFile.junit=${report}`]
  const { status } = spawnSync(vitest, [...args, ...process.argv.slice(2)], { stdio: 'inherit' })
  const ok = status === 0
  results.push({ project, ok, seconds: Math.round((Date.now() - started) / 1000), failed: ok ? [] : failuresOf(report) })
}

console.log('\nBrowser suites:')
for (const { project, ok, seconds } of results) {
  console.log(`  ${project.padEnd(11)} ${ok ? 'passed' : 'FAILED'} in ${seconds} s  (${versions[project]})`)
}
for (const { project, failed } of results.filter((r) => !r.ok)) {
  console.log(`\nFailed in ${project}:`)
  for (const line of failed) console.log(`  ${line}`)
}
process.exit(results.every((r) => r.ok) ? 0 : 1)
