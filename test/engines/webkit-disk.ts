// The `webkit-disk` project's provider: the browser test files in WebKit with IndexedDB on disk.
// Vitest's browser mode talks to its test page over its own WebSocket, so the provider only has
// to open the page: MiniBrowser started without WebDriver (scripts/webkit-disk.mjs) on a fresh
// data folder, with the page's URL on its command line. The `indexedDBFiles` command lets a test
// see the SQLite files in that folder (test/browser/engines.test.ts).
import { mkdtempSync, rmSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { defineBrowserProvider } from '@vitest/browser'
import type { BrowserCommand, BrowserProvider, BrowserProviderOption, TestProject } from 'vitest/node'
import { indexedDBFiles, startWebKitOnDisk, type WebKitOnDisk } from '../../scripts/webkit-disk.mjs'

/** How long MiniBrowser may take to request the test page once started. */
const LOAD_TIMEOUT_MS = 30_000

declare module 'vitest/browser' {
  interface BrowserCommands {
    /** webkit-disk only: every IndexedDB.sqlite3 in the browser's data folder, as `<origin>/<hash>/IndexedDB.sqlite3`. */
    indexedDBFiles: () => Promise<string[]>
  }
}

export const PROVIDER_NAME = 'webkit-disk'

export function webkitOnDisk(): BrowserProviderOption {
  return defineBrowserProvider({ name: PROVIDER_NAME, providerFactory: (project) => new WebKitDiskProvider(project) })
}

export const webkitDiskCommands = {
  indexedDBFiles: ((context) => {
    if (!(context.provider instanceof WebKitDiskProvider)) throw new Error(`indexedDBFiles is a webkit-disk command, not one of ${context.provider.name}`)
    return context.provider.indexedDBFiles()
  }) satisfies BrowserCommand<[], string[]>,
}

export class WebKitDiskProvider implements BrowserProvider {
  readonly name = PROVIDER_NAME
  // One window runs the test files one after another, as in the other engines' projects.
  readonly supportsParallelism = false
  private dir: string | undefined
  private browser: WebKitOnDisk | undefined

  constructor(private readonly project: TestProject) {}

  getCommandsContext() {
    return {}
  }

  indexedDBFiles(): string[] {
    return this.dir === undefined ? [] : indexedDBFiles(this.dir)
  }

  /**
   * Starts MiniBrowser on `url` and resolves once it has requested the page: rejects with its
   * output if it exits first or does not request it within LOAD_TIMEOUT_MS. (Vitest then waits
   * for the page's WebSocket, up to browser.connectTimeout.) Without WebDriver an open window
   * cannot be sent elsewhere: a second page restarts the browser on the same folder.
   */
  async openPage(sessionId: string, url: string): Promise<void> {
    const previous = this.browser
    this.browser = undefined
    await previous?.stop()
    this.dir ??= mkdtempSync(join(tmpdir(), 'idb-ttl-webkit-disk-'))
    const http = this.project.browser?.vite.httpServer
    let onRequest: ((request: IncomingMessage) => void) | undefined
    const requested = new Promise<void>((resolve) => {
      onRequest = (request) => void (request.url?.includes(sessionId) && resolve())
      http?.on('request', onRequest)
      if (!http) resolve()
    })
    const browser = startWebKitOnDisk({ dir: this.dir, url })
    this.browser = browser
    // After the browser's own exit handler (which kills its processes): listeners run in order.
    process.off('exit', this.removeDir)
    process.once('exit', this.removeDir)
    let timer: NodeJS.Timeout | undefined
    try {
      await Promise.race([
        requested,
        browser.exited.then(({ code, signal }) => {
          throw new Error(`MiniBrowser (on disk) exited (${signal ?? code}) before it requested ${url}:\n${browser.output()}`)
        }),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`MiniBrowser (on disk) did not request ${url} within ${LOAD_TIMEOUT_MS} ms:\n${browser.output()}`)), LOAD_TIMEOUT_MS)
        }),
      ])
      // Nothing else would say why the run stalls if the browser dies under it.
      void browser.exited.then(({ code, signal }) => {
        if (this.browser === browser) console.error(`MiniBrowser (on disk) exited (${signal ?? code}) during the run:\n${browser.output()}`)
      })
    } catch (error) {
      await this.close()
      throw error
    } finally {
      clearTimeout(timer)
      if (onRequest) http?.off('request', onRequest)
    }
  }

  /** Ends the browser and every process it started, and removes its data folder. */
  async close(): Promise<void> {
    const browser = this.browser
    this.browser = undefined
    await browser?.stop()
    this.removeDir()
  }

  /** Also on the way out of a run cut short (the browser's processes end with it: scripts/webkit-disk.mjs). */
  private readonly removeDir = () => {
    process.off('exit', this.removeDir)
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true })
    this.dir = undefined
  }
}
