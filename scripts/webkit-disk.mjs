// WebKit with IndexedDB on disk, as in Safari's normal windows and in iOS home-screen apps:
// Debian's WebKitGTK MiniBrowser started WITHOUT `--automation` (under WebDriver it keeps website
// data in memory, as Safari's private windows do), under xvfb-run, with its home and XDG folders
// in a data folder of ours. There it keeps each database in SQLite, at
//   <dir>/data/webkitgtk-4.1/MiniBrowser/databases/indexeddb/v1/<scheme>_<host>_<port>/<hash>/IndexedDB.sqlite3
// No WebDriver means nothing drives the page: it is opened from the command line and talks to a
// server itself (Vitest's own WebSocket for the browser tests, fetch to a collector elsewhere).
// Ending the browser and starting it again on the same folder is a browser restart with the data
// kept. Used by the `webkit-disk` test project (test/engines/webkit-disk.ts) and
// test/e2e/webkit-disk-restart.test.ts.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { MINIBROWSER_PATH, XVFB_RUN_PATH } from './browsers.mjs'

/**
 * MiniBrowser settings for the tests: popups without a user gesture (tests open a second page of
 * the app with window.open; MiniBrowser gives it a window of its own), and the page's console on
 * stdout (kept for error messages).
 */
export const WEBKIT_DISK_ARGS = ['--javascript-can-open-windows-automatically=true', '--enable-write-console-messages-to-stdout=true']

/** The environment that puts all of MiniBrowser's files (website data, caches, settings) under `dir`. */
export function dataEnv(dir) {
  return { HOME: dir, XDG_DATA_HOME: join(dir, 'data'), XDG_CACHE_HOME: join(dir, 'cache'), XDG_CONFIG_HOME: join(dir, 'config') }
}

/** The folder under `dir` that holds one folder per origin, each with one folder per database. */
export function indexedDBRoot(dir) {
  return join(dir, 'data', 'webkitgtk-4.1', 'MiniBrowser', 'databases', 'indexeddb', 'v1')
}

/** Every IndexedDB.sqlite3 under `dir`, as paths relative to indexedDBRoot(dir) (`<origin>/<hash>/IndexedDB.sqlite3`). */
export function indexedDBFiles(dir) {
  const root = indexedDBRoot(dir)
  if (!existsSync(root)) return []
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('/IndexedDB.sqlite3'))
    .sort()
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

function signalGroup(pid, signal) {
  try {
    process.kill(-pid, signal)
  } catch {
    // already gone
  }
}

/**
 * Starts MiniBrowser on `url` with its data in `dir` (created if missing; kept as it is, so a
 * second start on the same folder finds the first one's databases). xvfb-run is started in a
 * process group of its own: Xvfb, MiniBrowser and WebKit's network and web processes are all in it.
 */
export function startWebKitOnDisk({ dir, url, args = WEBKIT_DISK_ARGS }) {
  mkdirSync(dir, { recursive: true })
  const child = spawn(XVFB_RUN_PATH, ['-a', MINIBROWSER_PATH, ...args, url], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...dataEnv(dir) },
  })
  const pid = child.pid
  let output = ''
  const keep = (chunk) => void (output = (output + chunk).slice(-8000))
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  const onExit = () => pid !== undefined && signalGroup(pid, 'SIGKILL')
  process.once('exit', onExit)

  return {
    pid,
    /** Resolves when xvfb-run exits (MiniBrowser ended, or was ended). */
    exited,
    /** The last 8,000 characters MiniBrowser, Xvfb and xvfb-run wrote (the page's console among them). */
    output: () => output,
    /**
     * Ends every process of the group and waits until none is left, so the next start on the
     * same folder finds the databases closed: SIGTERM, then SIGKILL after `graceMs`.
     */
    async stop({ graceMs = 10_000 } = {}) {
      process.off('exit', onExit)
      if (pid === undefined) return
      signalGroup(pid, 'SIGTERM')
      const deadline = Date.now() + graceMs
      while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
      if (groupAlive(pid)) {
        signalGroup(pid, 'SIGKILL')
        while (groupAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50))
      }
      await exited
    },
  }
}
