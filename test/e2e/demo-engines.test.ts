/**
 * The demo page in Firefox and WebKit, through the same drivers as their browser test projects:
 * it loads with no error, and its background purge visibly deletes an expired item. (The full demo
 * end to end, demo.test.ts, runs in Chromium.)
 */
import { createServer, type Plugin, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Engine, EngineWindow } from '../engines/driver.js'
import { launchers } from '../engines/provider.js'

const POLL = { timeout: 30_000, interval: 100 }

/**
 * Records every page error, unhandled rejection and console.error before the demo's own scripts
 * run: classic WebDriver, unlike Playwright, has no event for them.
 */
const recordErrors: Plugin = {
  name: 'record-errors',
  transformIndexHtml: () => [
    {
      tag: 'script',
      injectTo: 'head-prepend',
      children: `window.__errors = [];
        addEventListener('error', (e) => __errors.push('error: ' + e.message));
        addEventListener('unhandledrejection', (e) => __errors.push('unhandled rejection: ' + (e.reason && e.reason.stack || e.reason)));
        const consoleError = console.error.bind(console);
        console.error = (...args) => { __errors.push('console.error: ' + args.join(' ')); consoleError(...args) };`,
    },
  ],
}

let server: ViteDevServer
let url: string

beforeAll(async () => {
  server = await createServer({ configFile: 'vite.config.ts', plugins: [recordErrors], server: { port: 0 }, logLevel: 'warn', clearScreen: false })
  await server.listen()
  url = server.resolvedUrls?.local[0] ?? ''
  if (!url) throw new Error('the vite dev server did not report a URL')
})

afterAll(async () => {
  await server?.close()
})

describe.each(['firefox', 'webkit'] satisfies Engine[])('the demo in %s', (engine) => {
  const db = `e2e-demo-${engine}-${Date.now()}`
  let page: EngineWindow

  beforeAll(async () => {
    page = await launchers[engine]()
    await page.goto(`${url}?db=${db}&maxIntervalMs=500`)
  })

  afterAll(async () => {
    await page?.evaluate((name) => void indexedDB.deleteDatabase(name), db).catch(() => {})
    await page?.close()
  })

  const status = () => page.evaluate(() => document.querySelector<HTMLElement>('[data-testid="status"]')?.dataset.state ?? null)
  const onDisk = (key: string) =>
    page.evaluate(
      (k) => [...document.querySelectorAll<HTMLElement>('[data-testid="disk-sessions"] [data-key]')].some((row) => row.dataset.key === k && row.dataset.state !== 'gone'),
      key,
    )
  const purgedFromSessions = () =>
    page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('[data-testid="purge-log"] [data-testid="purge-entry"][data-store="sessions"]')].reduce((n, entry) => n + Number(entry.dataset.deleted), 0),
    )

  test('loads with no error, and its background purge deletes an item whose 2 s ttl ran out', async () => {
    await expect.poll(status, POLL).toBe('ready')
    await page.evaluate(() => {
      const field = (id: string) => document.querySelector<HTMLInputElement>(`[data-testid="${id}"]`)!
      field('key-sessions').value = 'short'
      field('ttl-sessions').value = '2'
      field('add-sessions').click()
    })
    await expect.poll(() => onDisk('short'), POLL).toBe(true)
    await expect.poll(() => onDisk('short'), POLL).toBe(false)
    // The purge's report reaches the log after the disk view saw the item go (the report crosses
    // from the purger to the page; WebKit once showed the disk first): wait for it, as for the disk.
    await expect.poll(purgedFromSessions, POLL).toBeGreaterThanOrEqual(1)
    expect(await page.evaluate(() => (globalThis as unknown as { __errors: string[] }).__errors)).toEqual([])
  })
})
