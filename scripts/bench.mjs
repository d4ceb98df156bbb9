// `npm run bench`: every benchmark scenario in headless Debian Chromium, then the scenarios of
// ALL_ENGINE_IDS (get, put, putAll, getAll, purge, reads during a purge, reads beside a
// transaction, generations, open) in Firefox ESR, in WebKitGTK with IndexedDB in memory and in
// WebKitGTK with IndexedDB on disk on the same page, plus bundle sizes. Serves bench/ with
// Vite, drives Chromium with playwright-core, Firefox and WebKit in memory as the browser tests
// do, and starts WebKit on disk on the page, which POSTs its progress and rows to the server
// (scripts/bench-engines.mjs); prints the table, writes bench/results.json and bench/RESULTS.md,
// and exits non-zero when a target is missed.
// `node scripts/bench.mjs get-live size` runs only the scenarios named, each in every engine it
// runs in (and writes nothing); `--engines=firefox,webkit-disk` runs only those engines (and, with no
// scenario named, only the page: every scenario in Chromium, ALL_ENGINE_IDS elsewhere). With
// `--merge`, the named scenarios' new rows replace theirs in bench/results.json. The cosmos-*
// scenarios (Chromium only) run against a Cosmos DB server in this process (scripts/cosmos-server.mjs).
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { createServer } from 'vite'
import { measureSizes } from './bench-size.mjs'
import { startCosmosServer } from './cosmos-server.mjs'
import { ALL_ENGINE_IDS, ENGINE_NAMES, NAMED_ENGINE_IDS, benchCollector, defaultIds, runInEngine } from './bench-engines.mjs'
import { engineTable, markdownTable, writeResults } from './bench-report.mjs'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.mjs'
import { openAtQuota, startQuotaServer } from './quota.mjs'

const METHOD = [
  'Method: every row compares ours and its peer in the same page and run, in rounds whose order',
  'alternates (ABBA), an even number of them; each trial runs on a freshly created database',
  'seeded with the same data (written in 1000-item batches a second apart). The ratio is the',
  'median of the per-round ratios ours / peer (lower is better), with its 95% confidence',
  'interval; rounds go on until that interval is narrow or the budget is spent. Expiry comes',
  'from an injected clock, never from waiting, except in expire-lateness and live-expiry-lateness,',
  'which measure in real time how late onExpire reports items and how late a live query drops them',
  '(report-only rows and a p95 target, no peer). Chromium runs every',
  'scenario on a persistent on-disk profile (a default Playwright context keeps IndexedDB in',
  'memory). Firefox ESR (puppeteer-core, WebDriver BiDi; a profile on disk, IndexedDB files seen',
  'in it during the run), WebKitGTK in memory ("webkit": its MiniBrowser under WebKitWebDriver',
  'and Xvfb; the automated MiniBrowser is ephemeral, as Safari\'s private windows are, and no',
  'IndexedDB file appeared in its data directories) and WebKitGTK on disk ("webkit-disk": the same',
  'MiniBrowser under Xvfb without --automation, HOME and XDG folders of its own, IndexedDB in',
  'SQLite as in Safari\'s normal windows and home-screen apps, its IndexedDB.sqlite3 seen during the',
  'run; nothing drives it: the page runs itself and POSTs its progress and rows to the bench\'s',
  'server) run get, put, putAll, getAll, purge, reads-during-purge,',
  'reads-other-store-during-transaction, generations and open-200k on the same page, each against raw',
  'IndexedDB (or its own baseline) in that engine, in at most 20 rounds (Chromium: 30). In both',
  'WebKits the 60 s budget is strict (a comparison may stop before its minimum rounds, after one',
  'ABBA pair).',
  'cosmos-pull-10k, cosmos-push-1k and cosmos-queue-10k (Chromium) time the Cosmos DB mirror against',
  'the SDK\'s own calls (cosmos-queue-10k also against itself at 1,000, per record) on',
  '@vercel/cosmosdb-server, in-process JavaScript reached with CORS: one ABBA pair after a warm-up',
  'on a few items; only their ratio means something (docs/benchmarks.md).',
  'Long tasks are observed in Chromium only (no longtask entries elsewhere: shown as —, not 0).',
  'Sizes: size-limit (.size-limit.js: esbuild bundles the built entry with everything it imports,',
  'minified, gzipped); kB = 1000 bytes. What each feature adds to an app of idb-ttl/core:',
  'scripts/size-features.mjs (the app of idb-ttl over that of idb-ttl/core, bundled from src/ by',
  'esbuild, then what cutting each feature out of the idb-ttl app saves).',
].join('\n')

const repo = fileURLToPath(new URL('..', import.meta.url))
/** The scenarios that need the Cosmos DB server (Chromium only). */
const COSMOS_IDS = ['cosmos-pull-10k', 'cosmos-push-1k', 'cosmos-queue-10k', 'cosmos-round-cost']
const flags = process.argv.slice(2).filter((arg) => arg.startsWith('--'))
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'))
const engines = flags.find((flag) => flag.startsWith('--engines='))?.slice('--engines='.length).split(',') ?? ['chromium', ...ENGINE_NAMES]
// With --engines and no scenario named, only the page runs (in those engines).
const wants = (id) => only.includes(id) || (only.length === 0 && flags.length === 0)
const strange = [...flags.filter((flag) => !flag.startsWith('--engines=') && flag !== '--merge'), ...engines.filter((name) => !['chromium', ...ENGINE_NAMES].includes(name))]
if (strange.length > 0) throw new Error(`unknown flag or engine: ${strange.join(', ')} (--engines=${['chromium', ...ENGINE_NAMES].join(',')}, --merge)`)

function osName() {
  const release = readFileSync('/etc/os-release', 'utf8').match(/^PRETTY_NAME="?([^"\n]*)"?/m)
  return `${release?.[1] ?? os.type()} (${os.type()} ${os.release()})`
}

/** The bench page, served by Vite with the headers that make it cross-origin isolated. */
async function startServer() {
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
    // Workbox in production mode, as service workers ship it: in development its strategies log
    // every request and assert every argument, which the workbox-* rows would time.
    define: { 'process.env.NODE_ENV': '"production"' },
    optimizeDeps: {
      include: ['dexie', 'idb', 'comlink', '@azure/cosmos', 'workbox-strategies', 'workbox-expiration'],
      rolldownOptions: { transform: { define: { 'process.env.NODE_ENV': '"production"' } } },
    },
    // WebKit on disk reports over HTTP: the collector route, and the page's script that POSTs to it.
    plugins: [benchCollector()],
    worker: { format: 'es' },
  })
  await server.listen()
  return { url: `http://127.0.0.1:${server.httpServer.address().port}/`, close: () => server.close() }
}

async function runPage(url, ids) {
  mkdirSync(join(repo, 'bench/.tmp'), { recursive: true })
  const profile = mkdtempSync(join(repo, 'bench/.tmp/profile-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: [...CHROMIUM_ARGS, '--enable-precise-memory-info', '--js-flags=--expose-gc'], headless: true })
  try {
    const page = context.pages()[0] ?? (await context.newPage())
    page.on('console', (message) => message.text().startsWith('bench:') && console.log(message.text()))
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`))
    await page.goto(url)
    await page.waitForFunction(() => typeof window.runBench === 'function')
    return await page.evaluate((scenarioIds) => window.runBench(scenarioIds), ids)
  } finally {
    await context.close()
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
    for (const engine of ['chromium', 'firefox'].filter((name) => engines.includes(name))) {
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
          engine,
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
const engineEnvironments = {}
const pageIds = only.filter((id) => id !== 'size' && id !== 'quota-first-write')
if (only.length === 0 || pageIds.length > 0) {
  const server = await startServer()
  try {
    if (engines.includes('chromium')) {
      // The cosmos-* rows' server, in this process; the page gets its endpoint in its query.
      const cosmos = pageIds.length === 0 || pageIds.some((id) => COSMOS_IDS.includes(id)) ? await startCosmosServer() : undefined
      const url = cosmos ? `${server.url}?cosmos=${encodeURIComponent(cosmos.endpoint)}` : server.url
      const { page, rows: chromiumRows } = await runPage(url, pageIds).finally(() => cosmos?.close())
      rows.push(...chromiumRows.map((row) => ({ ...row, engine: 'chromium' })))
      engineEnvironments.chromium = {
        version: execFileSync(CHROMIUM_PATH, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(),
        userAgent: page.userAgent,
        crossOriginIsolated: page.crossOriginIsolated,
        storage: 'persistent on-disk profile',
      }
    }
    for (const engine of ENGINE_NAMES.filter((name) => engines.includes(name))) {
      const ids = only.length === 0 ? defaultIds(engine) : pageIds.filter((id) => ALL_ENGINE_IDS.includes(id) || NAMED_ENGINE_IDS.includes(id))
      if (ids.length === 0) continue
      const started = Date.now()
      const result = await runInEngine(engine, server.url, ids)
      const { version, storage, crossOriginIsolated } = result.environment
      console.log(`bench: ${engine} done in ${Math.round((Date.now() - started) / 1000)} s (${version}; ${storage}; crossOriginIsolated=${crossOriginIsolated})`)
      rows.push(...result.rows)
      engineEnvironments[engine] = result.environment
    }
  } finally {
    await server.close()
  }
}
if (wants('size')) {
  console.log('bench: size …')
  rows.push(...(await measureSizes()).map((row) => ({ ...row, engine: null })))
}
if (wants('quota-first-write')) rows.push(...(await quotaFirstWrite()))

const environment = {
  date: new Date().toISOString().replace(/\.\d+Z$/, ' UTC'),
  cpu: os.cpus()[0]?.model ?? 'unknown CPU',
  cores: os.cpus().length,
  memoryGB: Math.round(os.totalmem() / 2 ** 30),
  os: osName(),
  node: process.version,
  engines: engineEnvironments,
  loadAverage: [loadAtStart, os.loadavg()[0]],
}

console.log('\n' + markdownTable(rows) + '\n')
if (new Set(rows.map((row) => row.engine).filter(Boolean)).size > 1) console.log(engineTable(rows, { multiEngineOnly: true }) + '\n')
if (only.length === 0 && flags.length === 0) {
  writeResults(join(repo, 'bench'), environment, rows, METHOD)
  console.log('wrote bench/results.json and bench/RESULTS.md')
} else if (flags.includes('--merge')) {
  // The named scenarios' rows replace theirs in the last full run's results, which say so.
  const last = JSON.parse(readFileSync(join(repo, 'bench/results.json'), 'utf8'))
  const kept = last.scenarios.filter((row) => !(only.includes(row.id) && engines.includes(row.engine ?? 'chromium')))
  const merged = [...(last.environment.merged ?? []), { ids: only, engines, date: environment.date, loadAverage: environment.loadAverage }]
  // An engine re-run here describes itself anew (an engine new to the results gets its line).
  const mergedEngines = { ...last.environment.engines, ...engineEnvironments }
  writeResults(join(repo, 'bench'), { ...last.environment, engines: mergedEngines, merged }, [...kept, ...rows], METHOD)
  console.log(`merged ${only.join(', ')} into bench/results.json and bench/RESULTS.md`)
}
const missed = rows.filter((row) => !row.pass)
if (missed.length) {
  console.error(`${missed.length} target(s) missed: ${missed.map((row) => `${row.id} vs ${row.peerName}${row.engine ? ` (${row.engine})` : ''}`).join('; ')}`)
  process.exitCode = 1
}
