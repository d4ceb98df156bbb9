/**
 * The demo's section 9 end to end, in Debian's Chromium: the React island over `idb-ttl/react`
 * lists fetched headlines with `useLive` and drops each at its expiry (real time: the demo has no
 * clock to move, and headlines live 8 s); offline, `useStale` shows them, marked stale; and
 * `db.storage()` says the cache lives in its Storage Bucket, the demo's database in the default one.
 */
import { expect, test } from 'vitest'
import { demoForFile, POLL } from './demo-page.js'

const demo = demoForFile('headlines')

const ids = (testId: string) => demo.page.getByTestId(testId).locator('li').evaluateAll((items) => items.map((li) => li.getAttribute('data-id')))

test('useLive renders fetched headlines and removes each at its expiry; offline, useStale shows them marked stale', async () => {
  await demo.page.getByTestId('headlines-live').waitFor({ state: 'attached' })
  await demo.page.getByTestId('headlines-fetch').click()
  await expect.poll(() => ids('headlines-live'), POLL).toHaveLength(3)
  const fetched = await ids('headlines-live')
  // Expired (8 s): gone from the live list with no write, kept for the stale one.
  await expect.poll(() => ids('headlines-live'), POLL).toEqual([])
  await expect.poll(() => demo.page.getByTestId('headlines-stale-hint').textContent(), POLL).toContain('(3 kept now)')

  await demo.page.context().setOffline(true)
  await expect.poll(() => ids('headlines-stale'), POLL).toEqual(fetched)
  const marks = await demo.page.getByTestId('headlines-stale').locator('li mark').allTextContents()
  expect(marks).toEqual(['stale', 'stale', 'stale'])
  expect(demo.pageErrors).toEqual([])
})

test("db.storage() shows the cache in its evictable Storage Bucket and the demo's database in the default bucket", async () => {
  const rows = demo.page.getByTestId('storage').locator('li')
  await expect.poll(() => rows.evaluateAll((items) => items.map((li) => li.getAttribute('data-bucket'))), POLL).toEqual(['idb-ttl-demo-cache', 'default'])
  expect(await rows.first().textContent()).toContain('Storage Bucket "idb-ttl-demo-cache"')
  expect(await rows.last().textContent()).toContain('the default bucket')
})
