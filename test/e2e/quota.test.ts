/**
 * SPEC §9 at a real, small origin quota: an opted-in store under a steady stream of 20 kB writes
 * (10× the quota in all) accepts every write, while a store without evictOnQuota keeps every live
 * item, and a write that can never fit rejects with nothing of it written. Chromium: the quota is
 * shrunk through the DevTools protocol on a persistent profile; Firefox: through the
 * `dom.quotaManager.temporaryStorage.fixedLimit` pref. The page imports the library from a Vite
 * dev server.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium } from 'playwright-core'
import puppeteer from 'puppeteer-core'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { FIREFOX_PATH } from '../../scripts/browsers.mjs'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs'

/** A window at the small quota, running {@link stream}. */
interface QuotaWindow {
  goto(url: string): Promise<void>
  stream(args: StreamArgs): Promise<Outcome>
  close(): Promise<void>
}

const QUOTA_MB = 10
const VALUE_BYTES = 20_000
const WRITES = Math.ceil((10 * QUOTA_MB * 1024 * 1024) / VALUE_BYTES)
const KEEP = 50

let server: ViteDevServer
let origin: string

beforeAll(async () => {
  server = await createServer({
    configFile: false,
    root: resolve('test/e2e/quota-page'),
    server: { port: 0, host: 'localhost', fs: { allow: [resolve('.')] } },
    logLevel: 'warn',
    clearScreen: false,
  })
  await server.listen()
  origin = new URL(server.resolvedUrls?.local[0] ?? '').origin
})

afterAll(async () => {
  await server?.close()
})

async function launchChromium(): Promise<QuotaWindow> {
  const profile = mkdtempSync(join(tmpdir(), 'idb-ttl-quota-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true })
  const page = context.pages()[0] ?? (await context.newPage())
  return {
    goto: async (url) => {
      await page.goto(url)
      const cdp = await context.newCDPSession(page)
      await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: QUOTA_MB * 1024 * 1024 })
    },
    stream: (args) => page.evaluate(stream, args),
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

async function launchFirefox(): Promise<QuotaWindow> {
  // The limit is for all origins; one origin (a "group") gets at most a fifth of it, 10 MB at least.
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    extraPrefsFirefox: { 'dom.quotaManager.temporaryStorage.fixedLimit': QUOTA_MB * 1024 },
  })
  const page = (await browser.pages())[0] ?? (await browser.newPage())
  return {
    goto: async (url) => void (await page.goto(url, { waitUntil: 'load' })),
    stream: (args) => page.evaluate(stream, args),
    close: () => browser.close(),
  }
}

/** What the page reports after the stream. */
interface Outcome {
  accepted: number
  failures: string[]
  keep: number
  cache: number
  lastWritten: boolean
  neverFits: string
  neverFitsWritten: number
  evicted: number
}

type StreamArgs = [libUrl: string, writes: number, keep: number, bytes: number, quotaBytes: number]

/** Runs in the page: the stream of writes, then the write that can never fit. */
async function stream([libUrl, writes, keep, bytes, quotaBytes]: StreamArgs): Promise<Outcome> {
  // Not `import()`: Vitest rewrites it in this file, and this function runs in the page.
  const load = new Function('url', 'return import(url)') as (url: string) => Promise<typeof import('../../src/index.js')>
  const { openTtlDB } = await load(libUrl)
  const value = () => {
    const v = new Uint8Array(bytes)
    for (let i = 0; i < bytes; i += 65_536) crypto.getRandomValues(v.subarray(i, Math.min(bytes, i + 65_536)))
    return v
  }
  const db = await openTtlDB(`quota-${Date.now()}`, {
    version: 1,
    stores: { cache: { keyPath: 'id', defaultTtl: 86_400, evictOnQuota: true }, keep: { keyPath: 'id', defaultTtl: 86_400 } },
  })
  let evicted = 0
  db.onPurge((report) => (evicted += report.evicted ?? 0))
  for (let id = 0; id < keep; id++) await db.put('keep', { id, v: value() })
  const outcome = { accepted: 0, failures: [] as string[] } as Outcome
  for (let id = 0; id < writes; id++) {
    try {
      await db.put('cache', { id, v: value() })
      outcome.accepted++
    } catch (error) {
      outcome.failures.push(`${id}: ${(error as Error).name}: ${(error as Error).message}`)
    }
  }
  outcome.lastWritten = (await db.get('cache', writes - 1)) !== undefined
  const tooMuch = Array.from({ length: Math.ceil((2 * quotaBytes) / bytes) }, (_, i) => ({ id: `never-${i}`, v: value() }))
  outcome.neverFits = await db.putAll('cache', tooMuch).then(
    () => 'fulfilled',
    (error: Error) => error.name,
  )
  outcome.neverFitsWritten = (await db.getAllKeys('cache', IDBKeyRange.bound('never-', 'never-\uffff'))).length
  outcome.keep = await db.count('keep')
  outcome.cache = await db.count('cache')
  outcome.evicted = evicted
  db.close()
  return outcome
}

describe.each([
  ['chromium', launchChromium],
  ['firefox', launchFirefox],
] as const)('at a %s origin quota of 10 MB, a stream of 20 kB writes, 10× the quota in all', (engine, launch) => {
  let page: QuotaWindow
  let outcome: Outcome
  beforeAll(async () => {
    page = await launch()
    await page.goto(`${origin}/`)
    outcome = await page.stream([`${origin}/@fs${resolve('src/index.ts')}`, WRITES, KEEP, VALUE_BYTES, QUOTA_MB * 1024 * 1024])
    console.log(`${engine}: ${JSON.stringify({ ...outcome, failures: outcome.failures.slice(0, 5), failed: outcome.failures.length })}`)
  }, 600_000)
  afterAll(async () => {
    await page?.close()
  })

  test(`the store without evictOnQuota keeps its ${KEEP} items; a write that can never fit rejects with QuotaExceededError and leaves nothing`, () => {
    expect(outcome.keep).toBe(KEEP)
    expect(outcome.neverFits).toBe('QuotaExceededError')
    expect(outcome.neverFitsWritten).toBe(0)
    expect(outcome.failures.every((failure) => failure.includes('QuotaExceededError'))).toBe(true)
  })

  // KNOWN GAP in Chromium (README, "Capacity and quota"): its LevelDB gives the space of deleted
  // records back only when it compacts, which a 10 MB origin at its quota never gets to, so some
  // writes fail even after the opted-in store gave up its items. `fails` pins it.
  ;(engine === 'chromium' ? test.fails : test)(`the opted-in store accepts all ${WRITES} writes, evicting its oldest items`, () => {
    expect(outcome.failures).toEqual([])
    expect(outcome.accepted).toBe(WRITES)
    expect(outcome.lastWritten).toBe(true)
    expect(outcome.evicted).toBeGreaterThan(0)
  })
})
