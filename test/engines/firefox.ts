// Debian's Firefox ESR through puppeteer-core over WebDriver BiDi: no driver binary, no download.
import puppeteer from 'puppeteer-core'
import { FIREFOX_PATH } from '../../scripts/browsers.mjs'
import type { EngineWindow } from './driver.js'

export async function launchFirefox(): Promise<EngineWindow> {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    // window.open gives a window of its own, not a tab: a tab in front would hide the test page,
    // and a hidden page hands Web Lock leadership on (tests with a second page assume both visible,
    // as in Chromium).
    extraPrefsFirefox: { 'browser.link.open_newwindow': 2, 'browser.link.open_newwindow.restriction': 0 },
  })
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
