/**
 * The demo as an installed PWA, in Debian's Chromium through playwright-core: built with
 * vite-plugin-pwa (injectManifest) into a scratch folder and served by `vite preview` with the
 * demo's API. The page installs (no installability error), its service worker takes control and
 * answers `api/quotes` with Workbox's NetworkFirst and TtlExpirationPlugin; with the network cut
 * the page still loads and the cached response is served; moved past its expiry on the worker's
 * clock (`{ advance }`, no waiting) it is never served again, the offline answer takes its place,
 * and that request's event deletes it from Cache Storage and its entry from the disk; back
 * online, the next request refreshes it from the network.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs'

const DB = `e2e-offline-${Date.now()}`
/** The worker serves a cached response this long (demo/sw.ts). */
const API_TTL_MS = 20_000

let outDir: string | undefined
/** A profile of its own on disk: Chromium installs no app from an incognito context (Playwright's newContext). */
let profile: string | undefined
let server: PreviewServer | undefined
let context: BrowserContext | undefined
let page: Page
let url: string
const pageErrors: string[] = []

/** What the worker says after a message: its clock, and the URLs in the API's cache. */
interface Reply {
  now: number
  cached: string[]
}

/** Posts `message` to the controlling service worker; resolves to its reply. */
function tellWorker(message: { advance?: number }): Promise<Reply> {
  return page.evaluate(
    (data) =>
      new Promise<Reply>((resolve, reject) => {
        const worker = navigator.serviceWorker.controller
        if (!worker) return reject(new Error('no service worker controls the page'))
        const channel = new MessageChannel()
        channel.port1.onmessage = (event) => resolve(event.data as Reply)
        setTimeout(() => reject(new Error('the service worker did not answer within 10 s')), 10_000)
        worker.postMessage(data, [channel.port2])
      }),
    message,
  )
}

/** A request to the API from the page, as the panel makes it: status, who served it, its body, and its expiry. */
function fetchApi(): Promise<{ status: number; servedBy: string | null; n: number | undefined; quotes: number; expiresAt: number; now: number }> {
  return page.evaluate(async () => {
    const response = await fetch('./api/quotes')
    const body = (await response.json()) as { n?: number; quotes?: string[] }
    return {
      status: response.status,
      servedBy: response.headers.get('x-served-by'),
      n: body.n,
      quotes: body.quotes?.length ?? 0,
      expiresAt: Number(response.headers.get('x-expires-at')),
      now: Number(response.headers.get('x-now')),
    }
  })
}

/** The keys on disk of the plugin's entries (docs/workbox.md: database `idb-ttl-workbox:<cache name>`, store `entries`), read raw. */
function entriesOnDisk(): Promise<string[]> {
  return page.evaluate(
    () =>
      new Promise<string[]>((resolve, reject) => {
        const open = indexedDB.open('idb-ttl-workbox:demo-api')
        open.onerror = () => reject(open.error)
        open.onsuccess = () => {
          const db = open.result
          const keys = db.transaction('entries').objectStore('entries').getAllKeys()
          keys.onerror = () => reject(keys.error)
          keys.onsuccess = () => {
            db.close()
            resolve(keys.result as string[])
          }
        }
      }),
  )
}

/** Retries `check` until it passes: what a worker's event does goes on after it answered. */
const until = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 50 })

const panel = () => page.getByTestId('sw-panel')
/** Clicks the panel's fetch button and waits for its answer. */
async function panelFetch(): Promise<void> {
  await page.getByTestId('sw-fetch').click()
  await page.locator('[data-testid="sw-panel"][data-state="done"], [data-testid="sw-panel"][data-state="failed"]').waitFor()
}

beforeAll(async () => {
  outDir = await mkdtemp(path.join(tmpdir(), 'idb-ttl-demo-pwa-'))
  await build({ configFile: 'vite.config.ts', logLevel: 'warn', build: { outDir, emptyOutDir: true } })
  server = await preview({ configFile: 'vite.config.ts', logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: 0 } })
  url = server.resolvedUrls!.local[0]
  profile = await mkdtemp(path.join(tmpdir(), 'idb-ttl-demo-pwa-profile-'))
  context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true, viewport: { width: 1300, height: 1000 } })
  page = await context.newPage()
  page.setDefaultTimeout(30_000)
  page.on('pageerror', (error) => pageErrors.push(error.message))
  await page.goto(`${url}?db=${DB}`)
  await page.locator('[data-testid="status"][data-state="ready"]').waitFor()
})

afterAll(async () => {
  await context?.close()
  await server?.close()
  for (const dir of [outDir, profile]) if (dir) await rm(dir, { recursive: true, force: true })
})

test('`npm run demo:offline`, the command docs/demo.md gives for trying it offline, is the build and preview these tests run', async () => {
  const { scripts } = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> }
  expect(scripts['demo:offline']).toBe('vite build && vite preview')
  expect(await readFile('docs/demo.md', 'utf8')).toContain('npm run demo:offline')
})

test('the built demo is installable: a web app manifest with a name, 192 and 512 px PNG icons, standalone; Chromium reports no installability error', async () => {
  const manifest = await page.evaluate(async () => {
    const href = document.querySelector<HTMLLinkElement>('link[rel="manifest"]')!.href
    return (await fetch(href)).json()
  })
  expect(manifest).toMatchObject({ name: expect.stringContaining('idb-ttl'), short_name: 'idb-ttl demo', display: 'standalone', start_url: './' })
  for (const size of ['192x192', '512x512']) {
    const icon = (manifest.icons as { src: string; sizes: string; type: string }[]).find((i) => i.sizes === size && i.type === 'image/png')
    expect(icon, size).toBeDefined()
    const response = await page.request.get(new URL(icon!.src, url).href)
    expect(response.headers()['content-type']).toBe('image/png')
    const png = await response.body()
    expect(png.readUInt32BE(16), `${size} width`).toBe(Number(size.split('x')[0]))
  }
  // Chromium's own check: manifest, icons, a service worker with a fetch handler.
  await panel().and(page.locator('[data-worker="controlling"]')).waitFor()
  const cdp = await context!.newCDPSession(page)
  const { installabilityErrors } = (await cdp.send('Page.getInstallabilityErrors')) as { installabilityErrors: unknown[] }
  expect(installabilityErrors).toEqual([])
  await cdp.detach()
})

test('offline: the page loads from the precache and the API answer from Cache Storage (NetworkFirst, TtlExpirationPlugin) while its entry lives; past its ttl on the worker clock it is never served, and leaves Cache Storage and its entry; online again it is refreshed', async () => {
  // The worker took control and the panel's first request went through it to the network.
  await panel().and(page.locator('[data-worker="controlling"][data-state="done"]')).waitFor()
  expect(await panel().getAttribute('data-served-by')).toBe('network')
  const first = Number(await panel().getAttribute('data-n'))
  expect(first).toBeGreaterThan(0)
  expect(await page.getByTestId('sw-quote').count()).toBe(3)
  // Online, NetworkFirst asks the network every time, and caches its latest answer.
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('network')
  const latest = Number(await panel().getAttribute('data-n'))
  expect(latest).toBeGreaterThan(first)
  const key = new URL('api/quotes', url).href
  await until(async () => expect((await tellWorker({})).cached).toEqual([key]))
  expect(await entriesOnDisk()).toEqual([key])

  await context!.setOffline(true)
  await page.reload()
  await page.locator('[data-testid="status"][data-state="ready"]').waitFor()
  await panel().and(page.locator('[data-worker="controlling"][data-state="done"]')).waitFor()
  expect(await panel().getAttribute('data-served-by')).toBe('cache')
  expect(await panel().getAttribute('data-n')).toBe(String(latest))
  expect(await page.getByTestId('sw-quote').count()).toBe(3)
  expect(await page.getByTestId('sw-left').textContent()).toMatch(/^Cached copy served for \d+\.\d s more when the network fails$/)
  // The second frame is the same page under another query: the precached shell too.
  await page.frameLocator('[data-testid="second-frame"]').locator('[data-testid="status"][data-state="ready"]').waitFor()

  // Expiry on time, by the worker's clock: a second before it, still served from the cache…
  const cached = await fetchApi()
  expect(cached).toMatchObject({ status: 200, servedBy: 'cache', n: latest })
  expect(cached.expiresAt - cached.now).toBeLessThanOrEqual(API_TTL_MS)
  const before = await tellWorker({})
  const almost = await tellWorker({ advance: cached.expiresAt - 1000 - before.now })
  expect(almost.now).toBeLessThan(cached.expiresAt)
  expect(await fetchApi()).toMatchObject({ status: 200, servedBy: 'cache', n: latest })

  // …and past it, never served: the offline answer. (The expiry shown is the fetch's whole
  // second; the entry's is that one, or the next when its write fell there: a second more.)
  const after = await tellWorker({ advance: 2000 })
  expect(after.now).toBeGreaterThanOrEqual(cached.expiresAt + 1000)
  expect(after.cached).toEqual([key])
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('offline')
  expect(await page.getByTestId('sw-source').textContent()).toContain('503')
  expect(await page.getByTestId('sw-source').textContent()).toContain('Offline, and no live copy')
  expect(await page.getByTestId('sw-quote').count()).toBe(0)
  // That request's fetch event ran the purge: the response left Cache Storage, its entry the disk.
  await until(async () => expect((await tellWorker({})).cached).toEqual([]))
  expect(await entriesOnDisk()).toEqual([])

  // Back online, the next request goes to the network and is cached again; cut off, it is served.
  await context!.setOffline(false)
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('network')
  const refreshed = Number(await panel().getAttribute('data-n'))
  expect(refreshed).toBeGreaterThan(latest)
  await until(async () => expect((await tellWorker({})).cached).toEqual([key]))
  await context!.setOffline(true)
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('cache')
  expect(await panel().getAttribute('data-n')).toBe(String(refreshed))
  await context!.setOffline(false)
  expect(pageErrors).toEqual([])
})
