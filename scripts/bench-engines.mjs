// The benchmark page (bench/main.ts) in Firefox ESR, WebKitGTK with IndexedDB in memory and
// WebKitGTK with IndexedDB on disk. `runBench` runs for many minutes: it is started, then its
// progress lines and its result are fetched every few seconds, so that no single driver command
// outlives the drivers' own timeouts. Firefox and WebKit (in memory) are driven as in the browser
// tests, and polled through their drivers. WebKit on disk cannot be driven (under WebDriver its
// MiniBrowser keeps website data in memory): it is started on the page's URL
// (scripts/webkit-disk.mjs), the page starts itself and POSTs the same progress lines and result
// to a collector on the bench's Vite server (benchCollector), and those posts are what is polled.
// Each engine's data directory is watched for IndexedDB files, so the storage it reports is what
// was seen, not what was assumed.
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FIREFOX_PATH } from './browsers.mjs'
import { launchFirefox } from './firefox.mjs'
import { launchWebKit } from './webkit.mjs'
import { indexedDBFiles, startWebKitOnDisk } from './webkit-disk.mjs'

/** The scenarios that run in every engine: the rest are Chromium's alone. */
export const ALL_ENGINE_IDS = ['get-live', 'put-single', 'put-batch-1000', 'getall-1000-20pct-expired', 'purge-10k-of-50k', 'reads-during-purge', 'reads-other-store-during-transaction', 'generations', 'open-200k']
/** Scenarios that run in another engine only when named (`node scripts/bench.mjs <id> --engines=firefox`), never in `npm run bench`. */
export const NAMED_ENGINE_IDS = ['workbox-cachefirst-hit', 'workbox-purge-1k']

/** Firefox prefs that turn off its rounding of timers (to 20 µs, also in cross-origin isolated pages). */
const FULL_PRECISION_TIMERS = { 'privacy.reduceTimerPrecision': false, 'privacy.reduceTimerPrecision.unconditional': false }

const POLL_MS = 5_000
/** WebKit on disk: how long the page may go without a POST before the run is given up. */
const REPORT_TIMEOUT_MS = 120_000
/** The route of the bench's Vite server that the WebKit-on-disk page POSTs to. */
const COLLECTOR_PATH = '/__bench/report'
const repo = fileURLToPath(new URL('..', import.meta.url))

/** Whether `dir` holds an IndexedDB file (Firefox: storage/default/<origin>/idb/*.sqlite). */
function holdsIndexedDB(dir) {
  try {
    return readdirSync(dir, { recursive: true }).some((path) => /(^|\/)(idb|indexeddb)\//i.test(String(path)))
  } catch {
    return false
  }
}

/** What the engines driven by WebDriver are watched for in their data directories. */
const IDB_FILES = {
  holds: holdsIndexedDB,
  seen: 'on disk (IndexedDB files seen in its data directory)',
  unseen: 'in memory (no IndexedDB file in its data directory)',
}

/** Runs in the page: starts `runBench(ids)` and keeps its progress lines, errors and result. */
async function start(ids) {
  const state = (window.__bench = { lines: [], result: undefined, error: undefined })
  const log = console.log.bind(console)
  console.log = (...args) => {
    const text = args.join(' ')
    if (text.startsWith('bench:')) state.lines.push(text)
    log(...args)
  }
  addEventListener('error', (event) => state.lines.push(`page error: ${event.message}`))
  addEventListener('unhandledrejection', (event) => state.lines.push(`page error: unhandled rejection: ${event.reason}`))
  for (let waited = 0; typeof window.runBench !== 'function'; waited += 100) {
    if (waited > 30_000) throw new Error('the bench page did not define runBench')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  window.runBench(ids).then(
    (result) => (state.result = result),
    (error) => (state.error = `${error}\n${error?.stack ?? ""}`),
  )
}

/** Runs in the page: the progress lines since the last poll, and the outcome once there is one. */
function poll() {
  const state = window.__bench
  return { lines: state.lines.splice(0), result: state.result ?? null, error: state.error ?? null }
}

/**
 * Runs in the page (WebKit on disk, nothing drives it): `start(ids)`, then POSTs what `poll()`
 * returns to `path` at once and every `every` ms, until the result or an error went out.
 */
async function report(path, token, ids, every) {
  const send = (state) =>
    fetch(`${path}?token=${encodeURIComponent(token)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(state) })
  try {
    await start(ids)
  } catch (error) {
    await send({ lines: [], result: null, error: String(error?.stack ?? error) })
    return
  }
  for (;;) {
    const state = poll()
    await send(state)
    if (state.result || state.error) return
    await new Promise((resolve) => setTimeout(resolve, every))
  }
}

/**
 * The script benchCollector adds to the bench page: with `?report=<token>&ids=<id,id,…>` in its
 * URL the page runs those scenarios and reports them itself; without, it does nothing.
 */
const PAGE_REPORTER = `(() => {
${start}
${poll}
${report}
const params = new URLSearchParams(location.search)
if (params.has('report')) report(${JSON.stringify(COLLECTOR_PATH)}, params.get('report'), (params.get('ids') ?? '').split(',').filter(Boolean), ${POLL_MS})
})()`

/** The reports POSTed by each WebKit-on-disk run still going, by its token. */
const inboxes = new Map()

/**
 * The Vite plugin of the bench's server for WebKit on disk: POST COLLECTOR_PATH?token=… keeps the
 * page's report for the run of that token, and the page gets the script that sends them.
 */
export function benchCollector() {
  return {
    name: 'bench-collector',
    configureServer(server) {
      server.middlewares.use(COLLECTOR_PATH, (request, response) => {
        const inbox = inboxes.get(new URL(request.url ?? '', 'http://localhost').searchParams.get('token'))
        if (request.method !== 'POST' || !inbox) {
          response.statusCode = inbox ? 405 : 404
          response.end(inbox ? 'POST only' : 'no run with that token')
          return
        }
        let body = ''
        request.setEncoding('utf8')
        request.on('data', (chunk) => void (body += chunk))
        request.on('end', () => {
          try {
            inbox.reports.push(JSON.parse(body))
          } catch (error) {
            inbox.reports.push({ lines: [], result: null, error: `an unreadable report (${error}): ${body.slice(0, 200)}` })
          }
          inbox.last = Date.now()
          response.end('ok')
        })
      })
    },
    transformIndexHtml: () => [{ tag: 'script', injectTo: 'head', children: PAGE_REPORTER }],
  }
}

/** An engine under a driver: launched on `dir`, sent to `url`, `start`ed and polled through the driver. */
function driven(launch) {
  return async (dir, url, ids) => {
    const window = await launch(dir)
    try {
      await window.goto(url)
      await window.evaluate(start, ids)
    } catch (error) {
      await window.close()
      throw error
    }
    return { version: window.version, poll: () => window.evaluate(poll), close: () => window.close() }
  }
}

/**
 * WebKit on disk: MiniBrowser started on `url` with `report` and `ids` added, its data in `dir`;
 * polling reads what the page POSTed since. Fails with the browser's output when it exits first,
 * and when the page has POSTed nothing for REPORT_TIMEOUT_MS (or never did since the start).
 */
function reporting(dir, url, ids) {
  const token = randomUUID()
  const inbox = { reports: [], last: undefined }
  inboxes.set(token, inbox)
  const page = new URL(url)
  page.searchParams.set('report', token)
  page.searchParams.set('ids', ids.join(','))
  const started = Date.now()
  const browser = startWebKitOnDisk({ dir, url: page.href })
  let exit
  void browser.exited.then((outcome) => (exit = outcome))
  return {
    async poll() {
      const reports = inbox.reports.splice(0)
      if (reports.length > 0) {
        return {
          lines: reports.flatMap((r) => r.lines ?? []),
          result: reports.find((r) => r.result)?.result ?? null,
          error: reports.find((r) => r.error)?.error ?? null,
        }
      }
      if (exit) throw new Error(`MiniBrowser (on disk) exited (${exit.signal ?? exit.code}) before the bench page reported its result:\n${browser.output()}`)
      const silent = Date.now() - (inbox.last ?? started)
      if (silent > REPORT_TIMEOUT_MS) {
        const what = inbox.last === undefined ? `never reported (no POST to ${COLLECTOR_PATH} since MiniBrowser was started on it)` : 'stopped reporting (it POSTs every 5 s while it runs)'
        throw new Error(`the bench page in WebKit on disk ${what}: nothing for ${Math.round(silent / 1000)} s:\n${browser.output()}`)
      }
      return { lines: [], result: null, error: null }
    },
    async close() {
      inboxes.delete(token)
      await browser.stop()
    },
  }
}

/**
 * Per engine: how it opens the bench page on a data directory of ours (`open(dir, url, ids)`
 * starts the run and returns `{ poll, close, version }`), what its data directory is watched for,
 * the caps on its rounds (read by bench/harness.ts from the query string; Chromium's 30 rounds of
 * the cheap scenarios would add minutes for little), and the scenarios it leaves out unless they
 * are named on the command line.
 */
const ENGINES = {
  firefox: {
    // A profile of our own (puppeteer's default is one too, but elsewhere): its storage/ is watched.
    // Timers at full precision: Firefox rounds performance.now() to 20 µs, a twentieth of a put,
    // and a median of such steps moves a ratio by 0.05 at a time (docs/benchmarks.md).
    open: driven((dir) => launchFirefox({ userDataDir: dir, prefs: FULL_PRECISION_TIMERS })),
    version: () => execFileSync(FIREFOX_PATH, ['--version'], { encoding: 'utf8' }).trim(),
    watch: IDB_FILES,
    caps: { maxPairs: 20 },
    notRun: {},
  },
  webkit: {
    // MiniBrowser's data directories are under XDG_DATA_HOME and XDG_CACHE_HOME.
    open: driven((dir) => launchWebKit({ env: { XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache') } })),
    version: (session) => session.version,
    watch: IDB_FILES,
    // Strict: a comparison may stop after one ABBA pair once its 60 s are spent.
    caps: { maxPairs: 20, budgetMs: 60_000 },
    // The purges ran here only when named while marks were near-unique: a purge of 10k of 50k
    // took 6 minutes in this in-memory backend, 1.2× raw since marks are whole seconds.
    notRun: {},
  },
  'webkit-disk': {
    // No WebDriver: the page reports to benchCollector. HOME and XDG_* are under `dir`.
    open: reporting,
    version: () => `WebKitGTK ${execFileSync('dpkg-query', ['-W', '-f=${Version}', 'libwebkit2gtk-4.1-0'], { encoding: 'utf8' }).trim().replace(/-[^-]*$/, '')}, MiniBrowser without WebDriver`,
    watch: {
      holds: (dir) => indexedDBFiles(dir).length > 0,
      seen: 'on disk (SQLite: IndexedDB.sqlite3 seen in its data directory during the run)',
      unseen: 'NOT seen on disk (no IndexedDB.sqlite3 in its data directory at any poll)',
    },
    caps: { maxPairs: 20, budgetMs: 60_000 },
    notRun: {},
  },
}

/** The engines runInEngine knows, besides Chromium (which scripts/bench.mjs drives itself). */
export const ENGINE_NAMES = Object.keys(ENGINES)

/** The scenarios `engine` runs when none is named. */
export function defaultIds(engine) {
  return ALL_ENGINE_IDS.filter((id) => !(id in ENGINES[engine].notRun))
}

/**
 * The scenarios `ids` on the bench page at `url` in `engine`: its rows, each marked with the
 * engine, and what the environment records of the engine.
 */
export async function runInEngine(engine, url, ids) {
  const { open, version, watch, caps, notRun } = ENGINES[engine]
  mkdirSync(join(repo, 'bench/.tmp'), { recursive: true })
  const dir = mkdtempSync(join(repo, 'bench/.tmp', `${engine}-`))
  const page = new URL(url)
  for (const [name, cap] of Object.entries(caps)) page.searchParams.set(name, String(cap))
  let onDisk = false
  let session
  try {
    session = await open(dir, page.href, ids)
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      const { lines, result, error } = await session.poll()
      for (const line of lines) console.log(`${line.replace(/^bench:/, `bench: ${engine}:`)}`)
      onDisk ||= watch.holds(dir)
      if (error) throw new Error(`in ${engine}: ${error}`)
      if (!result) continue
      return {
        rows: result.rows.map((row) => ({ ...row, engine })),
        environment: {
          version: version(session),
          userAgent: result.page.userAgent,
          crossOriginIsolated: result.page.crossOriginIsolated,
          storage: onDisk ? watch.seen : watch.unseen,
          caps,
          notRun: Object.fromEntries(Object.entries(notRun).filter(([id]) => !ids.includes(id))),
        },
      }
    }
  } finally {
    await session?.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
