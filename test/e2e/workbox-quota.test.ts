/**
 * SPEC §13 at a real full disk: the service worker of the browser tests
 * (test/browser/realms/workbox-sw.ts, bundled by esbuild) answering with Workbox's CacheFirst, its
 * stand-in network sending 1 MB responses of random bytes, five times the quota in all. In
 * Chromium, its origin quota set to 10 MB through the DevTools protocol: with
 * TtlExpirationPlugin({ purgeOnQuotaError: true }) every request is answered, the cache gives up
 * its oldest responses a share at a time and keeps accepting new ones, and another cache keeps all
 * of its responses; workbox-expiration's ExpirationPlugin with the same option, at the same
 * quota, deletes both caches whole. In Firefox, at a 10 MB site limit through a pref (as
 * test/e2e/quota.test.ts sets it), a cache write past the limit resolves and stores nothing: no
 * QuotaExceededError reaches the strategy, so neither plugin has a full disk to react to.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build } from 'esbuild'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs'
import { launchFirefox } from '../../scripts/firefox.mjs'
import type { Answer, WorkboxRequest } from '../browser/realms/workbox-sw.js'

const QUOTA_MB = 10
const MB = 1_000_000

let root: string
let server: Server
let origin: string

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'idb-ttl-workbox-quota-'))
  writeFileSync(join(root, 'index.html'), '<!doctype html><meta charset="utf-8"><title>idb-ttl/workbox at a small quota</title>')
  await build({
    entryPoints: [new URL('../browser/realms/workbox-sw.ts', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    outfile: join(root, 'sw.js'),
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'error',
  })
  server = createServer((request, response) => {
    const file = request.url === '/sw.js' ? 'sw.js' : 'index.html'
    response.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/html' })
    response.end(readFileSync(join(root, file)))
  })
  await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve))
  origin = `http://localhost:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve))
  if (root) rmSync(root, { recursive: true, force: true })
})

/** A page of the engine, on `origin`. */
interface Window {
  evaluate<A, R>(fn: (arg: A) => Promise<R>, arg: A): Promise<R>
  close(): Promise<void>
}

/** A fresh browser profile at `origin` with a 10 MB quota (Chromium: exactly; Firefox: its smallest site group limit). */
async function atQuota(engine: 'chromium' | 'firefox'): Promise<Window> {
  let window: Window
  if (engine === 'chromium') {
    const profile = mkdtempSync(join(tmpdir(), 'idb-ttl-workbox-profile-'))
    const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true })
    const page = context.pages()[0] ?? (await context.newPage())
    await page.goto(`${origin}/`)
    const cdp = await context.newCDPSession(page)
    await cdp.send('Storage.overrideQuotaForOrigin', { origin, quotaSize: QUOTA_MB * 1024 * 1024 })
    window = {
      evaluate: (fn, arg) => page.evaluate(fn as (arg: unknown) => Promise<never>, arg),
      close: async () => {
        await context.close()
        rmSync(profile, { recursive: true, force: true })
      },
    }
  } else {
    // A site gets a fifth of the fixed limit.
    const firefox = await launchFirefox({ prefs: { 'dom.quotaManager.temporaryStorage.fixedLimit': QUOTA_MB * 5 * 1024 } })
    await firefox.goto(`${origin}/`)
    window = { evaluate: (fn, arg) => firefox.evaluate(fn, arg), close: () => firefox.close() }
  }
  await window.evaluate(async () => {
    await navigator.serviceWorker.register('/sw.js', { type: 'module', scope: '/' })
    await navigator.serviceWorker.ready
  }, undefined)
  return window
}

/** Sends `request` to the worker; resolves to its answer's value. */
function ask<T>(window: Window, request: WorkboxRequest): Promise<T> {
  return window.evaluate(async (message) => {
    const { active } = await navigator.serviceWorker.ready
    const reply = await new Promise<{ ok: boolean; value?: unknown; error?: { message: string } }>((resolve) => {
      const channel = new MessageChannel()
      channel.port1.onmessage = (event) => resolve(event.data)
      active!.postMessage(message, [channel.port2])
    })
    if (!reply.ok) throw new Error(reply.error!.message)
    return reply.value
  }, request) as Promise<T>
}

/** Fills cache `other` with 3 responses, then asks for 50 more of `api`, 1 MB each: what each answer and the caches hold. */
async function fill(engine: 'chromium' | 'firefox', plugin: 'ttl' | 'workbox') {
  const page = await atQuota(engine)
  try {
    const options = { maxAgeSeconds: 3600, purgeOnQuotaError: true }
    const get = (cacheName: string, path: string) => ask<Answer>(page, { op: 'get', cacheName, url: `/api/${path}?bytes=${MB}`, strategy: 'CacheFirst', plugin, options })
    const cached = (cacheName: string) => ask<string[]>(page, { op: 'cached', cacheName })
    for (const path of ['o1', 'o2', 'o3']) expect((await get('other', path)).failed).toBeUndefined()
    const answers: Answer[] = []
    const apiCounts: number[] = []
    for (let i = 1; i <= 5 * QUOTA_MB; i++) {
      answers.push(await get('api', `p${i}`))
      apiCounts.push((await cached('api')).length)
    }
    return { answers, apiCounts, api: await cached('api'), other: await cached('other') }
  } finally {
    await page.close()
  }
}

describe('chromium', () => {
  const engine = 'chromium'
  test(`TtlExpirationPlugin at a ${QUOTA_MB} MB quota: every response is served, the cache gives up its oldest and never empties, another cache keeps all of its responses`, async () => {
    const { answers, apiCounts, api, other } = await fill(engine, 'ttl')
    expect(answers.map((answer) => answer.body)).toEqual(answers.map((_, i) => `/api/p${i + 1} #${i + 4}`))
    const refused = answers.filter((answer) => answer.failed === 'QuotaExceededError').length
    console.log(`${engine}, TtlExpirationPlugin: ${refused} of ${answers.length} cache writes refused; cache sizes ${apiCounts.join(' ')}`)
    expect(refused).toBeGreaterThan(0)
    expect(answers.every((answer) => answer.failed === undefined || answer.failed === 'QuotaExceededError')).toBe(true)
    expect(Math.min(...apiCounts.slice(2))).toBeGreaterThan(0)
    // What is left are the newest responses: the oldest went first.
    const kept = api.map((url) => Number(/p(\d+)/.exec(url)![1])).sort((a, b) => a - b)
    expect(kept.at(-1)).toBeGreaterThan(answers.length - 3)
    expect(kept[0]).toBeGreaterThan(answers.length - 2 * QUOTA_MB)
    expect(other.sort()).toEqual(['/api/o1?bytes=1000000', '/api/o2?bytes=1000000', '/api/o3?bytes=1000000'])
  }, 300_000)

  test(`the contrast: workbox-expiration's ExpirationPlugin with purgeOnQuotaError, at the same quota, deletes its caches whole, the other one included`, async () => {
    const { answers, apiCounts, other } = await fill(engine, 'workbox')
    const refused = answers.filter((answer) => answer.failed === 'QuotaExceededError').length
    console.log(`${engine}, ExpirationPlugin: ${refused} of ${answers.length} cache writes refused; cache sizes ${apiCounts.join(' ')}`)
    expect(refused).toBeGreaterThan(0)
    expect(apiCounts).toContain(0)
    expect(other).toEqual([])
  }, 300_000)
})

test('firefox: cache writes past the site limit resolve and store nothing, so no plugin hears of a full disk; the responses are still served, from the network', async () => {
  const { answers, apiCounts, other } = await fill('firefox', 'ttl')
  console.log(`firefox, TtlExpirationPlugin: cache sizes ${apiCounts.join(' ')}`)
  expect(answers.map((answer) => answer.body)).toEqual(answers.map((_, i) => `/api/p${i + 1} #${i + 4}`))
  expect(answers.filter((answer) => answer.failed !== undefined)).toEqual([])
  expect(apiCounts.at(-1)).toBeLessThan(2 * QUOTA_MB)
  expect(other).toHaveLength(3)
}, 300_000)
