/**
 * The demo's section 8 end to end, in Debian's Chromium: TanStack Query's persister over
 * `ttlStorage`. A query fetched once is restored from IndexedDB after a reload; once the section's
 * clock is past the store's default it is never restored again, but fetched from the network.
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { openDemo, type DemoPage } from './demo-page.js'

const DB = `e2e-queries-${Date.now()}`
const POLL = { timeout: 30_000, interval: 100 }

let demo: DemoPage | undefined
let page: Page

beforeAll(async () => {
  demo = await openDemo()
  page = demo.page
  await page.goto(`${demo.url}?db=${DB}`)
})

afterAll(async () => {
  await demo?.close()
})

const source = () => page.getByTestId('queries-source').getAttribute('data-source')

test('a persisted query comes back after a reload, and is fetched again once expired, not restored', async () => {
  await expect.poll(source, POLL).toBe('network')
  await expect.poll(() => page.getByTestId('queries-entries').textContent(), POLL).toContain('tanstack-query-["server-time"]')
  const fetched = await page.getByTestId('queries-source').textContent()

  await page.reload()
  await expect.poll(source, POLL).toBe('restored')
  // The same data: the network was not asked.
  expect((await page.getByTestId('queries-source').textContent())?.split(': ').slice(1)).toEqual(fetched?.split(': ').slice(1))

  await page.getByTestId('queries-jump').click()
  await expect.poll(source, POLL).toBe('network')
  await page.reload()
  await expect.poll(source, POLL).toBe('restored')
  expect(demo!.pageErrors).toEqual([])
})
