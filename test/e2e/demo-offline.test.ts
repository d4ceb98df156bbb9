/**
 * The demo as an installed PWA, in Debian's Chromium through playwright-core: built with
 * vite-plugin-pwa (injectManifest) into a scratch folder and served by `vite preview` with the
 * demo's API. The page installs (no installability error), its service worker takes control and
 * answers `api/quotes` from its idb-ttl store; with the network cut the page still loads and the
 * stored response is still served; moved past its expiry on the worker's clock (`{ advance }`,
 * no waiting) it leaves reads and the disk at once and the offline answer takes its place; back
 * online, the next request refreshes it from the network.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { build, preview, type PreviewServer } from 'vite'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs'

const DB = `e2e-offline-${Date.now()}`
/** The worker's store keeps a response this long (demo/sw.ts). */
const API_TTL_MS = 20_000

let outDir: string | undefined
/** A profile of its own on disk: Chromium installs no app from an incognito context (Playwright's newContext). */
let profile: string | undefined
let server: PreviewServer | undefined
let context: BrowserContext | undefined
let page: Page
let url: string
const pageErrors: string[] = []

/** What the worker says after a message: its clock, and the stored URLs on disk and live. */
interface Reply {
  now: number
  onDisk: string[]
  live: string[]
}

/** Posts `message` to the controlling service worker; resolves to its reply (sent after its purge). */
function tellWorker(message: { advance?: number; raw?: boolean }): Promise<Reply> {
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

test('offline: the page loads from the precache and the API answer from the store; past its ttl on the worker clock it vanishes and the offline answer appears; online again it is refreshed', async () => {
  // The worker took control and the panel's first request went through it to the network.
  await panel().and(page.locator('[data-worker="controlling"][data-state="done"]')).waitFor()
  expect(await panel().getAttribute('data-served-by')).toBe('network')
  const first = Number(await panel().getAttribute('data-n'))
  expect(first).toBeGreaterThan(0)
  expect(await page.getByTestId('sw-quote').count()).toBe(3)
  // While it lives, the store answers: the network is not asked again.
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('store')
  expect(await panel().getAttribute('data-n')).toBe(String(first))
  expect(await page.getByTestId('sw-left').textContent()).toMatch(/^Fresh in the store for \d+\.\d s more$/)

  await context!.setOffline(true)
  await page.reload()
  await page.locator('[data-testid="status"][data-state="ready"]').waitFor()
  await panel().and(page.locator('[data-worker="controlling"][data-state="done"]')).waitFor()
  expect(await panel().getAttribute('data-served-by')).toBe('store')
  expect(await panel().getAttribute('data-n')).toBe(String(first))
  expect(await page.getByTestId('sw-quote').count()).toBe(3)
  // The second frame is the same page under another query: the precached shell too.
  await page.frameLocator('[data-testid="second-frame"]').locator('[data-testid="status"][data-state="ready"]').waitFor()

  // Expiry on time, by the worker's clock: a second before it, still served from the store…
  const stored = await fetchApi()
  expect(stored).toMatchObject({ status: 200, servedBy: 'store', n: first })
  expect(stored.expiresAt - stored.now).toBeLessThanOrEqual(API_TTL_MS)
  const before = await tellWorker({ raw: true })
  const key = new URL('api/quotes', url).href
  expect(before).toMatchObject({ onDisk: [key], live: [key] })
  const almost = await tellWorker({ advance: stored.expiresAt - 1000 - before.now })
  expect(almost.now).toBeLessThan(stored.expiresAt)
  expect(almost).toMatchObject({ onDisk: [key], live: [key] })
  expect(await fetchApi()).toMatchObject({ status: 200, servedBy: 'store', n: first })

  // …and at its expiry, gone from reads, and from the disk by the purge the message event ran.
  const after = await tellWorker({ advance: 1000 })
  expect(after.now).toBeGreaterThanOrEqual(stored.expiresAt)
  expect(after).toMatchObject({ onDisk: [], live: [] })
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('offline')
  expect(await page.getByTestId('sw-source').textContent()).toContain('503')
  expect(await page.getByTestId('sw-source').textContent()).toContain('Offline, and no live copy')
  expect(await page.getByTestId('sw-quote').count()).toBe(0)

  // Back online, the next request goes to the network and is stored again.
  await context!.setOffline(false)
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('network')
  const refreshed = Number(await panel().getAttribute('data-n'))
  expect(refreshed).toBeGreaterThan(first)
  await panelFetch()
  expect(await panel().getAttribute('data-served-by')).toBe('store')
  expect(await panel().getAttribute('data-n')).toBe(String(refreshed))
  expect(pageErrors).toEqual([])
})
