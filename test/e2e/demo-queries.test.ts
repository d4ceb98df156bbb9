/**
 * The demo's section 8 end to end, in Debian's Chromium: TanStack Query's persister over
 * `ttlStorage`. A query fetched once is restored from IndexedDB after a reload; once the section's
 * clock is past the store's default it is never restored again, but fetched from the network.
 */
import { expect, test } from 'vitest'
import { demoForFile, POLL } from './demo-page.js'

const demo = demoForFile('queries')

const source = () => demo.page.getByTestId('queries-source').getAttribute('data-source')
/** When the first live entry listed expires (epoch ms by the section's clock); 0 while none is listed. */
const firstExpiry = () => demo.page.evaluate(() => Number(document.querySelector('[data-testid="queries-entries"] li[data-expires-at]')?.getAttribute('data-expires-at') || 0))

test('a persisted query comes back after a reload, and is fetched again once expired, not restored', async () => {
  await expect.poll(source, POLL).toBe('network')
  await expect.poll(() => demo.page.getByTestId('queries-entries').textContent(), POLL).toContain('tanstack-query-["server-time"]')
  const fetched = await demo.page.getByTestId('queries-source').textContent()

  await demo.page.reload()
  await expect.poll(source, POLL).toBe('restored')
  // The same data: the network was not asked.
  expect((await demo.page.getByTestId('queries-source').textContent())?.split(': ').slice(1)).toEqual(fetched?.split(': ').slice(1))

  await expect.poll(firstExpiry, POLL).toBeGreaterThan(0)
  const restoredExpiry = await firstExpiry()
  await demo.page.getByTestId('queries-jump').click()
  await expect.poll(source, POLL).toBe('network')
  // The persister writes the query fetched again up to a second later (TanStack's throttle): reload
  // once the list shows that write, live and expiring later than the one restored.
  await expect.poll(firstExpiry, POLL).toBeGreaterThan(restoredExpiry)
  await demo.page.reload()
  await expect.poll(source, POLL).toBe('restored')
  expect(demo.pageErrors).toEqual([])
})
