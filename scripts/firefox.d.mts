import type { EngineWindow } from './engine-window.mjs'

export interface FirefoxOptions {
  /** Preferences on top of puppeteer's (`about:config` names). */
  prefs?: Record<string, unknown>
  /** The profile directory; by default puppeteer's own temporary one, deleted on close. */
  userDataDir?: string
}

export declare function launchFirefox(options?: FirefoxOptions): Promise<EngineWindow>
