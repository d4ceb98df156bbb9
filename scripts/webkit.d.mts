import type { EngineWindow } from './engine-window.mjs'

export interface WebKitOptions {
  /** MiniBrowser arguments after `--automation` (WebKitSettings such as `--enable-…=true`). */
  args?: string[]
  /** Environment variables for the driver and the browser it starts (e.g. `XDG_DATA_HOME`). */
  env?: Record<string, string>
}

export declare function launchWebKit(options?: WebKitOptions): Promise<EngineWindow>
