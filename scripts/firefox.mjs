// Debian's Firefox ESR through puppeteer-core over WebDriver BiDi: no driver binary, no download.
// Used by the browser tests (test/engines/provider.ts), the quota scenario and the benchmark.
import puppeteer from 'puppeteer-core'
import { FIREFOX_PATH } from './browsers.mjs'

export async function launchFirefox({ prefs = {}, userDataDir } = {}) {
  const browser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: true,
    extraPrefsFirefox: prefs,
    ...(userDataDir && { userDataDir }),
  })
  try {
    // The window's first tab: a second tab would be hidden, and Firefox throttles hidden tabs' timers.
    const page = (await browser.pages())[0] ?? (await browser.newPage())
    return {
      version: await browser.version(),
      goto: async (url) => void (await page.goto(url, { timeout: 0, waitUntil: 'load' })),
      evaluate: (fn, ...args) => page.evaluate(fn, ...args),
      close: () => browser.close(),
    }
  } catch (error) {
    await browser.close()
    throw error
  }
}
