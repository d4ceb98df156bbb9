/** The demo in the Vite dev server (vite.config.ts) and one page of it in Debian's Chromium, for the demo's end-to-end tests. */
import { chromium, type Browser, type Page } from 'playwright-core'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll } from 'vitest'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/chromium.mjs'

export interface DemoPage {
  server: ViteDevServer
  browser: Browser
  /** Not navigated yet: each test file opens the demo with its own query. */
  page: Page
  /** The dev server's URL, ending in `/`. */
  url: string
  /** Uncaught errors of the page. */
  pageErrors: string[]
  /** Console errors, of every frame of the page. */
  consoleErrors: string[]
  close(): Promise<void>
}

/** Starts the dev server and a 1300 × 1000 Chromium page that records its errors. */
export async function openDemo(): Promise<DemoPage> {
  const server = await createServer({ configFile: 'vite.config.ts', server: { port: 0 }, logLevel: 'warn', clearScreen: false })
  await server.listen()
  const url = server.resolvedUrls?.local[0]
  if (!url) throw new Error('the vite dev server did not report a URL')
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true })
  const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } })
  page.setDefaultTimeout(30_000)
  const pageErrors: string[] = []
  const consoleErrors: string[] = []
  page.on('pageerror', (error) => pageErrors.push(error.message))
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()))
  const close = async () => {
    await browser.close()
    await server.close()
  }
  return { server, browser, page, url, pageErrors, consoleErrors, close }
}

/** How long and how often the demo's tests wait for the page to show something. */
export const POLL = { timeout: 30_000, interval: 100 }

/** The demo of one test file: read its fields inside the tests (its beforeAll sets them). */
export interface DemoFile extends Pick<DemoPage, 'page' | 'url' | 'pageErrors' | 'consoleErrors'> {
  /** The database the page opens (`?db=`), the file's own. */
  readonly db: string
}

/**
 * Opens the demo for the tests of the calling file, before them, on a database of its own
 * (`e2e-<name>-<time>`, with `query` after it in the page's URL), waits for `ready` if given; after
 * them deletes that database and closes the browser and the server.
 */
export function demoForFile(name: string, options: { query?: string; ready?: (page: Page) => Promise<unknown> } = {}): DemoFile {
  const db = `e2e-${name}-${Date.now()}`
  let demo: DemoPage | undefined
  const open = (): DemoPage => {
    if (!demo) throw new Error(`the demo of e2e-${name} is read before its beforeAll opened it`)
    return demo
  }
  beforeAll(async () => {
    demo = await openDemo()
    await demo.page.goto(`${demo.url}?db=${db}${options.query ?? ''}`)
    await options.ready?.(demo.page)
  })
  afterAll(async () => {
    await demo?.page.evaluate((name) => indexedDB.deleteDatabase(name), db).catch(() => {})
    await demo?.close()
  })
  return {
    db,
    get page() {
      return open().page
    },
    get url() {
      return open().url
    },
    get pageErrors() {
      return open().pageErrors
    },
    get consoleErrors() {
      return open().consoleErrors
    },
  }
}
