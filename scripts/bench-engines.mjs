// The benchmark page (bench/main.ts) in Firefox ESR and WebKitGTK, through the same drivers as
// the browser tests. `runBench` runs for many minutes: it is started, then polled every few
// seconds for its progress lines and its result, so that no single driver command outlives the
// drivers' own timeouts. Each engine's data directory is watched for IndexedDB files, so the
// storage it reports is what was seen, not what was assumed.
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { FIREFOX_PATH } from './browsers.mjs'
import { launchFirefox } from './firefox.mjs'
import { launchWebKit } from './webkit.mjs'

/** The scenarios that run in every engine: the rest are Chromium's alone. */
export const ALL_ENGINE_IDS = ['get-live', 'put-single', 'put-batch-1000', 'getall-1000-20pct-expired', 'purge-10k-of-50k', 'reads-during-purge', 'generations']

const POLL_MS = 5_000
const repo = fileURLToPath(new URL('..', import.meta.url))

/**
 * Per engine: how it starts on a data directory of ours, the caps on its rounds (read by
 * bench/harness.ts from the query string; Chromium's 30 rounds of the cheap scenarios would add
 * minutes for little), and the scenarios it leaves out unless they are named on the command line.
 */
const ENGINES = {
  firefox: {
    // A profile of our own (puppeteer's default is one too, but elsewhere): its storage/ is watched.
    launch: (dir) => launchFirefox({ userDataDir: dir }),
    version: () => execFileSync(FIREFOX_PATH, ['--version'], { encoding: 'utf8' }).trim(),
    caps: { maxPairs: 20 },
    notRun: {},
  },
  webkit: {
    // MiniBrowser's data directories are under XDG_DATA_HOME and XDG_CACHE_HOME.
    launch: (dir) => launchWebKit({ env: { XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache') } }),
    version: (window) => window.version,
    // Strict: a comparison may stop after one ABBA pair once its 60 s are spent.
    caps: { maxPairs: 20, budgetMs: 60_000 },
    // The purges ran here only when named while marks were near-unique: a purge of 10k of 50k
    // took 6 minutes in this in-memory backend, 1.2× raw since marks are whole seconds.
    notRun: {},
  },
}

/** The scenarios `engine` runs when none is named. */
export function defaultIds(engine) {
  return ALL_ENGINE_IDS.filter((id) => !(id in ENGINES[engine].notRun))
}

/** Whether `dir` holds an IndexedDB file (Firefox: storage/default/<origin>/idb/*.sqlite). */
function holdsIndexedDB(dir) {
  try {
    return readdirSync(dir, { recursive: true }).some((path) => /(^|\/)(idb|indexeddb)\//i.test(String(path)))
  } catch {
    return false
  }
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
 * The scenarios `ids` on the bench page at `url` in `engine`: its rows, each marked with the
 * engine, and what the environment records of the engine.
 */
export async function runInEngine(engine, url, ids) {
  const { launch, version, caps } = ENGINES[engine]
  mkdirSync(join(repo, 'bench/.tmp'), { recursive: true })
  const dir = mkdtempSync(join(repo, 'bench/.tmp', `${engine}-`))
  const window = await launch(dir)
  let onDisk = false
  try {
    await window.goto(`${url}?${new URLSearchParams(caps)}`)
    await window.evaluate(start, ids)
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS))
      const { lines, result, error } = await window.evaluate(poll)
      for (const line of lines) console.log(`${line.replace(/^bench:/, `bench: ${engine}:`)}`)
      onDisk ||= holdsIndexedDB(dir)
      if (error) throw new Error(`in ${engine}: ${error}`)
      if (!result) continue
      return {
        rows: result.rows.map((row) => ({ ...row, engine })),
        environment: {
          version: version(window),
          userAgent: result.page.userAgent,
          crossOriginIsolated: result.page.crossOriginIsolated,
          storage: onDisk ? 'on disk (IndexedDB files seen in its data directory)' : 'in memory (no IndexedDB file in its data directory)',
          caps,
          notRun: Object.fromEntries(Object.entries(ENGINES[engine].notRun).filter(([id]) => !ids.includes(id))),
        },
      }
    }
  } finally {
    await window.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
