// A browser at a small origin quota, and the write stream run in it: shared by the quota test
// (test/e2e/quota.test.ts) and the benchmark (scripts/bench.mjs, `quota-first-write`).
// Chromium: the DevTools protocol's quota override on a persistent profile; Firefox: the
// `dom.quotaManager.temporaryStorage.fixedLimit` pref (a site gets a fifth of it, 10 MB at least).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { createServer } from 'vite'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './chromium.mjs'
import { launchFirefox } from './firefox.mjs'

const repo = fileURLToPath(new URL('..', import.meta.url))

/** A Vite dev server with an empty page: the origin the quota applies to, and the library's URL. */
export async function startQuotaServer() {
  const root = mkdtempSync(join(tmpdir(), 'idb-ttl-quota-page-'))
  writeFileSync(join(root, 'index.html'), '<!doctype html><meta charset="utf-8"><title>idb-ttl at a small quota</title>')
  const server = await createServer({
    configFile: false,
    root,
    server: { port: 0, host: 'localhost', fs: { allow: [repo, root] } },
    logLevel: 'warn',
    clearScreen: false,
  })
  await server.listen()
  const origin = new URL(server.resolvedUrls?.local[0] ?? '').origin
  return {
    origin,
    libUrl: `${origin}/@fs${join(repo, 'src/index.ts')}`,
    close: async () => {
      await server.close()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

async function chromiumAt(origin, quotaMB) {
  const profile = mkdtempSync(join(tmpdir(), 'idb-ttl-quota-'))
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true })
  const page = context.pages()[0] ?? (await context.newPage())
  await page.goto(`${origin}/`)
  const cdp = await context.newCDPSession(page)
  await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: quotaMB * 1024 * 1024 })
  return {
    version: context.browser()?.version() ?? '',
    stream: (args) => page.evaluate(stream, args),
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

async function firefoxAt(origin, quotaMB) {
  const fixedLimitKB = Math.max(quotaMB * 5, 10) * 1024
  const window = await launchFirefox({ prefs: { 'dom.quotaManager.temporaryStorage.fixedLimit': fixedLimitKB } })
  await window.goto(`${origin}/`)
  return { version: window.version, stream: (args) => window.evaluate(stream, args), close: () => window.close() }
}

/** A browser window on `origin` with that origin's quota set to `quotaMB` (10 at least in Firefox). */
export function openAtQuota(engine, origin, quotaMB) {
  return engine === 'chromium' ? chromiumAt(origin, quotaMB) : firefoxAt(origin, quotaMB)
}

/**
 * Runs in the page: `keep` values of `bytes` random bytes into a store without evictOnQuota, then
 * `writes` single puts of `valueBytes` (`bytes` unless given) into an opted-in store, each timed,
 * `inFlight` at a time (1 unless given), then one putAll of twice the quota in values of `bytes`
 * (it can never fit). Reports what was accepted, kept
 * and left behind, and the write times, with and without quota relief (a write during which
 * items were evicted).
 */
async function stream({ libUrl, writes, keep, bytes, valueBytes = bytes, quotaBytes, inFlight = 1 }) {
  // Not `import()`: a test runner may rewrite it in the file this function comes from.
  const { openTtlDB } = await new Function('url', 'return import(url)')(libUrl)
  const value = (bytes) => {
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
  for (let id = 0; id < keep; id++) await db.put('keep', { id, v: value(bytes) })
  const outcome = { accepted: 0, failures: [], normalMs: [], reliefMs: [] }
  let next = 0
  const writer = async () => {
    for (let id = next++; id < writes; id = next++) {
      const before = evicted
      const started = performance.now()
      try {
        await db.put('cache', { id, v: value(valueBytes) })
        outcome.accepted++
      } catch (error) {
        outcome.failures.push(`${id}: ${error.name}: ${error.message}`)
      }
      ;(evicted > before ? outcome.reliefMs : outcome.normalMs).push(performance.now() - started)
    }
  }
  await Promise.all(Array.from({ length: inFlight }, writer))
  outcome.lastWritten = (await db.get('cache', writes - 1)) !== undefined
  const tooMuch = Array.from({ length: Math.ceil((2 * quotaBytes) / bytes) }, (_, i) => ({ id: `never-${i}`, v: value(bytes) }))
  outcome.neverFits = await db.putAll('cache', tooMuch).then(
    () => 'fulfilled',
    (error) => error.name,
  )
  outcome.neverFitsWritten = (await db.getAllKeys('cache', IDBKeyRange.bound('never-', 'never-\uffff'))).length
  outcome.keep = await db.count('keep')
  outcome.cache = await db.count('cache')
  outcome.evicted = evicted
  db.close()
  return outcome
}
