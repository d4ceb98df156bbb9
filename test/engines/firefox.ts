// Debian's Firefox ESR through puppeteer-core over WebDriver BiDi: no driver binary, no download.
import puppeteer from 'puppeteer-core'
import { FIREFOX_PATH } from '../../scripts/browsers.mjs'
import type { EngineWindow } from './driver.js'

export async function launchFirefox(): Promise<EngineWindow> {
  const browser = await puppeteer.launch({ browser: 'firefox', executablePath: FIREFOX_PATH, headless: true })
  try {
    // The window's first tab: a second tab would be hidden, and Firefox throttles hidden tabs' timers.
    const page = (await browser.pages())[0] ?? (await browser.newPage())
    return {
      version: await browser.version(),
      goto: async (url) => void (await page.goto(url, { timeout: 0, waitUntil: 'load' })),
      evaluate: (fn, ...args) => page.evaluate(fn as (...a: unknown[]) => unknown, ...args) as never,
      close: () => browser.close(),
    }
  } catch (error) {
    await browser.close()
    throw error
  }
}
