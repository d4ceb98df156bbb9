/** The demo in the Vite dev server (vite.config.ts) and one page of it in Debian's Chromium, for the demo's end-to-end tests. */
import { chromium, type Browser, type Page } from 'playwright-core'
import { createServer, type ViteDevServer } from 'vite'
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
