// `npm run bench`: every benchmark scenario in headless Debian Chromium, plus bundle sizes.
// Serves bench/ with Vite, drives the page with playwright-core, prints the table, writes
// bench/results.json and bench/RESULTS.md, and exits non-zero when a target is missed.
// `node scripts/bench.mjs get-live size` runs only the scenarios named (and writes nothing).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { createServer } from 'vite'
import { measureSizes } from './bench-size.mjs'
import { markdownTable, writeResults } from './bench-report.mjs'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.mjs'
import { openAtQuota, startQuotaServer } from './quota.mjs'

const METHOD = [
  'Method: every row compares ours and its peer in the same page and run, in rounds whose order',
  'alternates (ABBA), an even number of them; each trial runs on a freshly created database',
  'seeded with the same data (written in 1000-item batches a second apart). The ratio is the',
  'median of the per-round ratios ours / peer (lower is better), with its 95% confidence',
  'interval; rounds go on until that interval is narrow or the budget is spent. Expiry comes',
  'from an injected clock, never from waiting, except in expire-lateness, which measures in',
  'real time how late onExpire reports items (report-only rows, no peer). Chromium runs on a',
  'persistent on-disk profile (a default Playwright context keeps IndexedDB in memory). Sizes:',
  'vite library build of the entry with everything it imports, minified, gzip -9; kB = 1000',
  'bytes.',
].join('\n')

const repo = fileURLToPath(new URL('..', import.meta.url))
const only = process.argv.slice(2)
const wants = (id) => only.length === 0 || only.includes(id)

function osName() {
  const release = readFileSync('/etc/os-release', 'utf8').match(/^PRETTY_NAME="?([^"\n]*)"?/m)
  return `${release?.[1] ?? os.type()} (${os.type()} ${os.release()})`
}

async function runPage(ids) {
  const server = await createServer({
    configFile: false,
    root: join(repo, 'bench'),
    cacheDir: join(repo, 'bench/.tmp/vite'),
    logLevel: 'warn',
    clearScreen: false,
    // Cross-origin isolation gives performance.now() its fine (5 µs) resolution. No HMR and no
    // watcher: edits to src/ during a run must not reload the page.
    server: {
      host: '127.0.0.1',
      port: 0,
      hmr: false,
      watch: null,
      fs: { allow: [repo] },
      headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' },
    },
    optimizeDeps: { include: ['dexie', 'idb', 'comlink'] },
    worker: { format: 'es' },
  })
  await server.listen()
  mkdirSync(join(repo, 'bench/.tmp'), { recursive: true })
  const profile = mkdtempSync(join(repo, 'bench/.tmp/profile-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--enable-precise-memory-info', '--js-flags=--expose-gc'], headless: true })
  try {
    const page = context.pages()[0] ?? (await context.newPage())
    page.on('console', (message) => message.text().startsWith('bench:') && console.log(message.text()))
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`))
    await page.goto(`http://127.0.0.1:${server.httpServer.address().port}/`)
    await page.waitForFunction(() => typeof window.runBench === 'function')
    return await page.evaluate((scenarioIds) => window.runBench(scenarioIds), ids)
  } finally {
    await context.close()
    await server.close()
    rmSync(profile, { recursive: true, force: true })
  }
}

/**
 * `quota-first-write`, per engine: at a 10 MB origin quota, a stream of 20 kB puts into a store
 * with evictOnQuota, three times the quota in all: the median time of a write that had to make
 * room (purge, evict, retry) against that of a write that did not. Report-only.
 */
async function quotaFirstWrite() {
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN
  const server = await startQuotaServer()
  const rows = []
  try {
    for (const engine of ['chromium', 'firefox']) {
      console.log(`bench: quota-first-write in ${engine} …`)
      const page = await openAtQuota(engine, server.origin, 10)
      try {
        const outcome = await page.stream({ libUrl: server.libUrl, writes: 1600, keep: 0, bytes: 20_000, quotaBytes: 10 * 1024 * 1024 })
        const ours = median(outcome.reliefMs)
        const peer = median(outcome.normalMs)
        rows.push({
          id: 'quota-first-write',
          ours,
          peer,
          peerName: `${engine} ${page.version}: a write with room to spare`,
          unit: `ms p50 (${outcome.reliefMs.length} writes made room; ${outcome.failures.length} refused)`,
          ratio: ours / peer,
          target: 'reported',
          pass: true,
        })
      } finally {
        await page.close()
      }
    }
  } finally {
    await server.close()
  }
  return rows
}

const loadAtStart = os.loadavg()[0]
const rows = []
if (wants('size')) {
  console.log('bench: size …')
  rows.push(...(await measureSizes()))
}
if (wants('quota-first-write')) rows.push(...(await quotaFirstWrite()))
const pageIds = only.filter((id) => id !== 'size' && id !== 'quota-first-write')
let page
if (only.length === 0 || pageIds.length > 0) {
  const result = await runPage(pageIds)
  page = result.page
  rows.unshift(...result.rows)
}

const environment = {
  date: new Date().toISOString().replace(/\.\d+Z$/, ' UTC'),
  cpu: os.cpus()[0]?.model ?? 'unknown CPU',
  cores: os.cpus().length,
  memoryGB: Math.round(os.totalmem() / 2 ** 30),
  os: osName(),
  node: process.version,
  browser: page && execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
  storage: 'persistent on-disk profile',
  crossOriginIsolated: page?.crossOriginIsolated,
  loadAverage: [loadAtStart, os.loadavg()[0]],
}

console.log('\n' + markdownTable(rows) + '\n')
if (only.length === 0) {
  writeResults(join(repo, 'bench'), environment, rows, METHOD)
  console.log('wrote bench/results.json and bench/RESULTS.md')
}
const missed = rows.filter((row) => !row.pass)
if (missed.length) {
  console.error(`${missed.length} target(s) missed: ${missed.map((row) => `${row.id} vs ${row.peerName}`).join('; ')}`)
  process.exitCode = 1
}
