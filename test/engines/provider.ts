// A Vitest browser provider that only opens the test page, in Firefox or WebKit through our own
// drivers: Playwright's builds of those engines cannot be downloaded here, and Debian's Firefox
// ESR lags the WebDriver BiDi commands Playwright's Firefox channel sends.
import { defineBrowserProvider } from '@vitest/browser'
import type { BrowserProvider, BrowserProviderOption } from 'vitest/node'
import type { Engine, EngineWindow } from './driver.js'
import { launchFirefox } from '../../scripts/firefox.mjs'
import { launchWebKit } from '../../scripts/webkit.mjs'

export const launchers: Record<Engine, () => Promise<EngineWindow>> = {
  // window.open gives a window of its own, not a tab: a tab in front would hide the test page, and
  // a hidden page hands Web Lock leadership on (tests with a second page assume both visible, as
  // in Chromium).
  firefox: () => launchFirefox({ prefs: { 'browser.link.open_newwindow': 2, 'browser.link.open_newwindow.restriction': 0 } }),
  // Popups allowed: tests open a second page of the app with window.open, with no user gesture.
  webkit: () => launchWebKit({ args: ['--javascript-can-open-windows-automatically=true'] }),
}

export function engine(name: Engine): BrowserProviderOption {
  return defineBrowserProvider({ name: `engine-${name}`, providerFactory: () => new EngineProvider(name) })
}

class EngineProvider implements BrowserProvider {
  readonly name: string
  // One visible window runs the test files one after another: hidden tabs get throttled timers.
  readonly supportsParallelism = false
  private window: Promise<EngineWindow> | undefined

  constructor(private readonly engine: Engine) {
    this.name = `engine-${engine}`
  }

  getCommandsContext() {
    return {}
  }

  async openPage(_sessionId: string, url: string): Promise<void> {
    this.window ??= launchers[this.engine]()
    await (await this.window).goto(url)
  }

  async close(): Promise<void> {
    const window = this.window
    this.window = undefined
    await (await window)?.close()
  }
}
