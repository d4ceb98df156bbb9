/**
 * Durability across a browser restart, in WebKit with IndexedDB on disk (scripts/webkit-disk.mjs):
 * a page writes 200 items with idb-ttl at an injected time; the browser is ended (SIGTERM to every
 * process of it at once, MiniBrowser and WebKit's network process that holds the SQLite files, not
 * an orderly quit), and a new one started on the same data folder, with the clock two minutes on,
 * reads them back.
 * Every live item comes back as written, with its _ts; those whose 60 s ttl ran out while the
 * browser was closed are invisible, yet still on disk until purgeExpired deletes them.
 * Nothing drives the page (no WebDriver: that would keep the data in memory): it takes its orders
 * from its URL and POSTs what it found to a collector on the Vite dev server that serves it.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createServer, type Plugin, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { indexedDBFiles, startWebKitOnDisk } from '../../scripts/webkit-disk.mjs'
import { COUNT, itemOf, ttlOf } from './webkit-disk-restart.page.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const REPORT_TIMEOUT_MS = 60_000
/** The first browser's time (a whole second), and the second's: two minutes on. */
const T1 = 1_800_000_000_000
const T2 = T1 + 120_000

type Report = Record<string, unknown> & { phase: string; error?: string }

const reports: Report[] = []
const waiting = new Set<() => void>()

/** POST /report: the page's findings, kept in `reports`. */
const collector: Plugin = {
  name: 'report-collector',
  configureServer(server) {
    server.middlewares.use('/report', (request, response) => {
      let body = ''
      request.setEncoding('utf8')
      request.on('data', (chunk: string) => void (body += chunk))
      request.on('end', () => {
        reports.push(JSON.parse(body) as Report)
        response.end('ok')
        for (const wake of waiting) wake()
      })
    })
  },
}

let server: ViteDevServer
let origin: string
let pageRoot: string

beforeAll(async () => {
  pageRoot = mkdtempSync(join(tmpdir(), 'idb-ttl-restart-page-'))
  writeFileSync(
    join(pageRoot, 'index.html'),
    `<!doctype html><meta charset="utf-8"><title>idb-ttl restart</title><script type="module" src="/@fs${join(repo, 'test/e2e/webkit-disk-restart.page.ts')}"></script>`,
  )
  server = await createServer({
    configFile: false,
    root: pageRoot,
    plugins: [collector],
    // No dependency discovery: a late discovery reloads the page, which would run it twice.
    optimizeDeps: { noDiscovery: true },
    server: { port: 0, host: '127.0.0.1', fs: { allow: [repo, realpathSync(join(repo, 'node_modules')), pageRoot] } },
    logLevel: 'warn',
    clearScreen: false,
  })
  await server.listen()
  origin = new URL(server.resolvedUrls?.local[0] ?? '').origin
})

afterAll(async () => {
  await server?.close()
  rmSync(pageRoot, { recursive: true, force: true })
})

/**
 * Starts MiniBrowser on the page with its data in `dir`, waits for the page's report, then ends
 * the browser and waits until none of its processes is left.
 */
async function session(dir: string, phase: 'write' | 'read', now: number, db: string): Promise<Report> {
  const seen = reports.length
  const browser = startWebKitOnDisk({ dir, url: `${origin}/?phase=${phase}&now=${now}&db=${db}` })
  let timer: NodeJS.Timeout | undefined
  let wake: (() => void) | undefined
  try {
    const report = await Promise.race([
      new Promise<Report>((resolve) => {
        wake = () => reports.length > seen && resolve(reports[seen]!)
        waiting.add(wake)
      }),
      browser.exited.then(({ code, signal }) => {
        throw new Error(`MiniBrowser exited (${signal ?? code}) before the ${phase} page reported:\n${browser.output()}`)
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the ${phase} page did not report within ${REPORT_TIMEOUT_MS} ms:\n${browser.output()}`)), REPORT_TIMEOUT_MS)
      }),
    ])
    if (report.error !== undefined) throw new Error(`the ${phase} page failed: ${report.error}`)
    expect(report.phase).toBe(phase)
    return report
  } finally {
    clearTimeout(timer)
    if (wake) waiting.delete(wake)
    await browser.stop()
  }
}

/** The file WebKit keeps database `name` of `origin` in: `<scheme>_<host>_<port>/<SHA-256 of the name>/IndexedDB.sqlite3`. */
function fileOf(name: string): string {
  const { protocol, hostname, port } = new URL(origin)
  return `${protocol.slice(0, -1)}_${hostname}_${port}/${createHash('sha256').update(name).digest('hex').toUpperCase()}/IndexedDB.sqlite3`
}

describe('WebKit on disk: 200 items written, the browser ended and started again on the same folder two minutes later', () => {
  const db = `restart-${Date.now()}`
  let dir: string
  let written: Report
  let filesBetween: string[]
  let read: Report

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'idb-ttl-webkit-restart-'))
    written = await session(dir, 'write', T1, db)
    filesBetween = indexedDBFiles(dir)
    read = await session(dir, 'read', T2, db)
  }, 3 * REPORT_TIMEOUT_MS)

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  const ids = Array.from({ length: COUNT }, (_, i) => i)
  const expected = (ids: number[]) => ids.map((i) => ({ ...itemOf(i), _ts: T1 / 1000 }))
  const live = ids.filter((i) => ttlOf(i) !== 60)
  const expired = ids.filter((i) => ttlOf(i) === 60)

  test('the first browser wrote all 200, stamped with its clock, into a SQLite file of the data folder', () => {
    expect(written.items).toEqual(expected(ids))
    expect(written.raw).toBe(COUNT)
    expect(filesBetween).toEqual([fileOf(db)])
  })

  test('after the restart every live item is read back as written, with its _ts', () => {
    expect(read.items).toEqual(expected(live))
    expect(read.count).toBe(live.length)
  })

  test(`the ${expired.length} items whose 60 s ttl ran out while the browser was closed are invisible, yet on disk until purgeExpired deletes them`, () => {
    expect(read.expiredGets).toEqual(expired.map(() => null))
    expect(read.rawBefore).toBe(COUNT)
    expect(read.purged).toBe(expired.length)
    expect(read.rawAfter).toBe(live.length)
    expect(read.rawKeys).toEqual(live)
  })
})
