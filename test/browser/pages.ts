/**
 * A second page of the same browser, for what happens across tabs: a same-origin popup with its
 * own instance of the library (its own module map), sharing the origin's IndexedDB, Web Locks and
 * BroadcastChannels with the test page, as a second tab of the app would.
 */
import { afterEach } from 'vitest'

type Library = typeof import('../../src/index.js')

export interface Page {
  lib: Library
  window: Window & typeof globalThis
  close(): void
}

const pages: Page[] = []

export async function openPage(): Promise<Page> {
  const popup = window.open('about:blank', '_blank') as (Window & typeof globalThis) | null
  if (!popup) throw new Error('the browser refused to open a second page')
  // Vite serves the library to vitest with its dynamic imports wrapped by vitest's browser runner,
  // which the popup lacks: there, they run as written.
  Object.assign(popup, { __vitest_browser_runner__: { wrapDynamicImport: (load: () => unknown) => load() } })
  const url = new URL('../../src/index.ts', import.meta.url).href
  const lib = (await popup.eval(`import(${JSON.stringify(url)})`)) as Library
  const page = { lib, window: popup, close: () => popup.close() }
  pages.push(page)
  return page
}

afterEach(() => {
  for (const page of pages.splice(0)) page.close()
})
