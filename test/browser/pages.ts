/**
 * A second page of the same browser, for what happens across tabs: a same-origin popup with its
 * own instance of the library (its own module map), sharing the origin's IndexedDB, Web Locks and
 * BroadcastChannels with the test page, as a second tab of the app would.
 */
import { afterEach } from 'vitest'

type Library = typeof import('../../src/index.js')
type CoreLibrary = typeof import('../../src/core.js')

export interface Page<L = Library> {
  lib: L
  window: Window & typeof globalThis
  close(): void
}

const pages: Page<unknown>[] = []

/**
 * A second page with `idb-ttl` (or `idb-ttl/core`) loaded. `loads` runs each of the page's
 * `import()`s, given what the bundler made of it (`() => import('/src/…')`): a test may hold one back.
 */
export async function openPage(): Promise<Page>
export async function openPage(entry: 'idb-ttl/core', loads?: (load: () => Promise<unknown>) => Promise<unknown>): Promise<Page<CoreLibrary>>
export async function openPage(entry: 'idb-ttl' | 'idb-ttl/core' = 'idb-ttl', loads = (load: () => Promise<unknown>) => load()): Promise<Page<unknown>> {
  const popup = window.open('about:blank', '_blank') as (Window & typeof globalThis) | null
  if (!popup) throw new Error('the browser refused to open a second page')
  // Vite serves the library to vitest with its dynamic imports wrapped by vitest's browser runner,
  // which the popup lacks: there, they run as written.
  Object.assign(popup, { __vitest_browser_runner__: { wrapDynamicImport: loads } })
  const url = new URL(entry === 'idb-ttl' ? '../../src/index.ts' : '../../src/core.ts', import.meta.url).href
  const lib = (await popup.eval(`import(${JSON.stringify(url)})`)) as unknown
  const page = { lib, window: popup, close: () => popup.close() }
  pages.push(page)
  return page
}

afterEach(() => {
  for (const page of pages.splice(0)) page.close()
})
