// The three browser engines the tests run in, all from Debian's packages (nothing here downloads a
// browser or a driver): where each one's files live and which packages provide them.
import { CHROMIUM_PATH } from './chromium.mjs'

export const FIREFOX_PATH = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr'
export const WEBKIT_DRIVER_PATH = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver'
export const MINIBROWSER_PATH = process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser'
// MiniBrowser has no headless mode: WebKitWebDriver runs under a virtual X server.
export const XVFB_RUN_PATH = '/usr/bin/xvfb-run'

/** @type {Record<'chromium' | 'firefox' | 'webkit', { files: string[]; packages: string[] }>} */
export const ENGINES = {
  chromium: { files: [CHROMIUM_PATH], packages: ['chromium'] },
  firefox: { files: [FIREFOX_PATH], packages: ['firefox-esr'] },
  // xvfb-run needs xauth, which xvfb only recommends.
  webkit: { files: [WEBKIT_DRIVER_PATH, MINIBROWSER_PATH, XVFB_RUN_PATH, '/usr/bin/xauth'], packages: ['webkit2gtk-driver', 'xvfb', 'xauth'] },
}
