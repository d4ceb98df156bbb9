/**
 * The demo's section 7 end to end, in Debian's Chromium through playwright-core: the dev server
 * starts the embedded Cosmos DB server (demo/cosmos-server.ts), the page shows the container and
 * its mirror side by side; an item written on the server reaches the mirror, expiring at the same
 * instant on both sides; the server side hides an expired item the embedded server keeps; with the network cut the mirror reports offline and keeps a local write
 * queued; restored, the write reaches the server. A write the server refuses (over 2 MB) is set
 * aside and listed, then retried and discarded; switching the tenant shows only that tenant's
 * items, and a write owed to the last tenant waits for it (a phone's 390 px holds both). And the proxy, which holds the key: it passes
 * on requests for the demo's container only, and its signature, which only a real account checks,
 * is the SDK's own.
 */
import { HTTPMethod, ResourceType } from '@azure/cosmos'
import type { Locator } from 'playwright-core'
import { expect, test } from 'vitest'
import { sign } from '../../demo/cosmos-server.js'
import { demoForFile, POLL } from './demo-page.js'
// The SDK's own signing, not part of its public API.
import { generateHeaders } from '../../node_modules/@azure/cosmos/dist/esm/utils/headers.js'

const demo = demoForFile('cosmos', { ready: (page) => page.locator('[data-testid="status"][data-state="ready"]').waitFor() })

/** A row of a side whose item is there (not lingering as "gone"). */
function row(side: 'server' | 'mirror', id: string): Locator {
  return demo.page.locator(`[data-testid="rows-cosmos-${side}"] [data-key="${id}"]:not([data-state="gone"])`)
}

async function write(side: 'server' | 'mirror', id: string, note: string): Promise<void> {
  await demo.page.getByTestId(`key-cosmos-${side}`).fill(id)
  await demo.page.getByTestId(`note-cosmos-${side}`).fill(note)
  await demo.page.getByTestId(`add-cosmos-${side}`).click()
}

/** When a side's row says its item expires, epoch ms. */
async function expiry(side: 'server' | 'mirror', id: string): Promise<number> {
  return Number(await row(side, id).getByTestId('countdown').getAttribute('data-expires-at'))
}

const sync = () => demo.page.getByTestId('cosmos-sync')

test('the page shows the container and its mirror; a write on the server reaches the mirror, expiring at the same instant on both sides', async () => {
  await demo.page.getByTestId('cosmos-server').waitFor()
  await demo.page.getByTestId('cosmos-mirror').waitFor()
  await expect.poll(() => demo.page.getByTestId('cosmos-server-note').textContent()).toContain('never deletes an item')
  await write('server', 'from-server', 'written on the server')
  await row('server', 'from-server').waitFor()
  await row('mirror', 'from-server').waitFor()
  await expect(row('mirror', 'from-server').locator('.note').textContent()).resolves.toBe('written on the server')
  const onServer = await expiry('server', 'from-server')
  expect(onServer).toBeGreaterThan(Date.now())
  expect(await expiry('mirror', 'from-server')).toBe(onServer)
})

test('the server side applies TTL itself: an item leaves it at its expiry while the embedded server still holds it', async () => {
  await demo.page.getByTestId('ttl-cosmos-server').fill('3')
  await write('server', 'short-lived', 'ttl 3')
  await demo.page.getByTestId('ttl-cosmos-server').fill('')
  await row('server', 'short-lived').waitFor()
  const at = await expiry('server', 'short-lived')
  await expect.poll(() => row('server', 'short-lived').count(), POLL).toBe(0)
  expect(Date.now()).toBeGreaterThanOrEqual(at)
  // The mirror's copy, if a pull brought it in time, went at the same instant.
  await expect.poll(() => row('mirror', 'short-lived').count(), POLL).toBe(0)
  const stored = await demo.page.request.get(`${demo.url}__cosmos/server/dbs/idb-ttl-demo/colls/mirror/docs/short-lived`, { headers: { 'x-ms-documentdb-partitionkey': '["demo"]' } })
  expect(stored.status()).toBe(200)
  expect(await stored.json()).toMatchObject({ id: 'short-lived', ttl: 3 })
})

test('cut off, the mirror reports offline and keeps its local write queued; restored, the write reaches the server with the same expiry', async () => {
  await demo.page.getByTestId('cosmos-network').click()
  await demo.page.locator('[data-testid="cosmos-network"][data-online="false"]').waitFor()
  await write('mirror', 'from-mirror', 'written offline')
  await row('mirror', 'from-mirror').waitFor()
  // A round ran after the write and could not reach the server: the write is still owed.
  await expect.poll(async () => [await sync().getAttribute('data-state'), await sync().getAttribute('data-pending')], POLL).toEqual(['offline', '1'])
  // The server side still reads the container, and the write is not there.
  await row('server', 'from-server').waitFor()
  expect(await row('server', 'from-mirror').count()).toBe(0)

  await demo.page.getByTestId('cosmos-network').click()
  await demo.page.locator('[data-testid="cosmos-network"][data-online="true"]').waitFor()
  await row('server', 'from-mirror').waitFor()
  await expect(row('server', 'from-mirror').locator('.note').textContent()).resolves.toBe('written offline')
  await expect.poll(async () => [await sync().getAttribute('data-state'), await sync().getAttribute('data-pending')], POLL).toEqual(['idle', '0'])
  // After the push the mirror's copy carries the server's _ts: one expiry on both sides.
  await expect.poll(async () => (await expiry('mirror', 'from-mirror')) === (await expiry('server', 'from-mirror')), POLL).toBe(true)
  expect(demo.pageErrors).toEqual([])
  // The only console errors expected: the requests the cut network left unanswered.
  expect(demo.consoleErrors.filter((text) => !text.includes('net::ERR_EMPTY_RESPONSE'))).toEqual([])
})

test('a delete on either side reaches the other (as a tombstone, which neither side shows)', async () => {
  await row('server', 'from-mirror').getByTestId('delete').click()
  await expect.poll(() => row('server', 'from-mirror').count(), POLL).toBe(0)
  await expect.poll(() => row('mirror', 'from-mirror').count(), POLL).toBe(0)
  await row('mirror', 'from-server').getByTestId('delete').click()
  await expect.poll(() => row('mirror', 'from-server').count(), POLL).toBe(0)
  await expect.poll(() => row('server', 'from-server').count(), POLL).toBe(0)
})

/** A write the server refused, as the panel lists it from `sync.rejected()`. */
const setAside = (id: string) => demo.page.locator(`[data-testid="cosmos-rejected-list"] li[data-key="${id}"]`)

test('a write the server refuses (an item over 2 MB: 413) is set aside, listed from sync.rejected() with the answer, and blocks nothing; Retry meets the same answer; Discard gives it up: the server has no copy, so the local item goes', async () => {
  await demo.page.getByTestId('cosmos-too-big').click()
  await row('mirror', 'too-big-1').waitFor()
  await write('mirror', 'after-big', 'queued after it')
  await expect.poll(() => setAside('too-big-1').getAttribute('data-status'), POLL).toBe('413')
  await expect(setAside('too-big-1').textContent()).resolves.toContain('put refused: 413')
  await expect.poll(() => sync().textContent(), POLL).toContain('· 1 set aside ·')
  // The write queued after it reached the server; the refused one is owed nothing and stays local.
  await row('server', 'after-big').waitFor()
  await expect.poll(() => sync().getAttribute('data-pending'), POLL).toBe('0')
  expect(await row('server', 'too-big-1').count()).toBe(0)
  expect(await row('mirror', 'too-big-1').count()).toBe(1)

  // Each refused push is a 413 the browser logs: the retry's is awaited, else what follows could
  // see the list before the retry began, or while it was under way.
  const refusals = () => demo.consoleErrors.filter((text) => text.includes('status of 413')).length
  const refusedBefore = refusals()
  await setAside('too-big-1').getByTestId('rejected-retry').click()
  // Queued again as it was, and refused again at the next push: one record for the key.
  await expect.poll(refusals, POLL).toBe(refusedBefore + 1)
  await expect.poll(() => sync().getAttribute('data-pending'), POLL).toBe('0')
  await expect.poll(() => setAside('too-big-1').count(), POLL).toBe(1)
  await expect.poll(() => demo.page.locator('[data-testid="cosmos-rejected-list"] li').count(), POLL).toBe(1)

  // On a phone the list and its buttons fit the screen.
  await demo.page.setViewportSize({ width: 390, height: 844 })
  await demo.page.getByTestId('cosmos-rejected').scrollIntoViewIfNeeded()
  expect(await demo.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  for (const target of [setAside('too-big-1'), setAside('too-big-1').getByTestId('rejected-discard')]) {
    const box = (await target.boundingBox())!
    expect([box.x >= 0, box.x + box.width <= 390]).toEqual([true, true])
  }
  await demo.page.setViewportSize({ width: 1300, height: 1000 })

  await setAside('too-big-1').getByTestId('rejected-discard').click()
  await expect.poll(() => setAside('too-big-1').count(), POLL).toBe(0)
  await expect.poll(() => row('mirror', 'too-big-1').count(), POLL).toBe(0)
  expect(await row('server', 'too-big-1').count()).toBe(0)
  await expect.poll(() => sync().textContent(), POLL).not.toContain('set aside')
  expect(demo.pageErrors).toEqual([])
})

/** Chooses a tenant in the panel's selector and waits until the switch is done. */
async function chooseTenant(tenant: string): Promise<void> {
  await demo.page.getByTestId('cosmos-tenant').selectOption(tenant)
  await demo.page.locator(`[data-testid="cosmos-tenant"][data-tenant="${tenant}"]:not([disabled])`).waitFor()
}

test('switching the tenant (sync.stop(), then syncCosmos with the new partitionKey, then a pull): both sides show only that tenant\'s items; a write still owed to the last tenant is not pushed into the next, and comes back with its tenant', async () => {
  const errorsBefore = demo.consoleErrors.length
  await row('mirror', 'after-big').waitFor()
  await chooseTenant('acme')
  await expect(demo.page.locator('.call').filter({ hasText: 'syncCosmos(' }).textContent()).resolves.toContain("partitionKey: 'acme'")
  await expect.poll(() => row('mirror', 'after-big').count(), POLL).toBe(0)
  await expect.poll(() => row('server', 'after-big').count(), POLL).toBe(0)
  await write('server', 'acme-1', 'for acme')
  await row('mirror', 'acme-1').waitFor()
  await write('mirror', 'acme-2', 'written in the acme mirror')
  await row('server', 'acme-2').waitFor()

  // On a phone the selector fits the screen.
  await demo.page.setViewportSize({ width: 390, height: 844 })
  await demo.page.getByTestId('cosmos-tenant').scrollIntoViewIfNeeded()
  expect(await demo.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390)
  const box = (await demo.page.getByTestId('cosmos-tenant').boundingBox())!
  expect([box.x >= 0, box.x + box.width <= 390]).toEqual([true, true])
  await demo.page.setViewportSize({ width: 1300, height: 1000 })

  // Cut off, a write of acme's stays owed; the switch to demo takes acme's items off the device.
  await demo.page.getByTestId('cosmos-network').click()
  await demo.page.locator('[data-testid="cosmos-network"][data-online="false"]').waitFor()
  await write('mirror', 'acme-owed', 'written offline for acme')
  await expect.poll(() => sync().getAttribute('data-pending'), POLL).toBe('1')
  await chooseTenant('demo')
  for (const id of ['acme-1', 'acme-2', 'acme-owed']) await expect.poll(() => row('mirror', id).count(), POLL).toBe(0)
  await demo.page.getByTestId('cosmos-network').click()
  await demo.page.locator('[data-testid="cosmos-network"][data-online="true"]').waitFor()
  await row('mirror', 'after-big').waitFor()
  await row('server', 'after-big').waitFor()
  await expect.poll(() => sync().getAttribute('data-state'), POLL).toBe('idle')
  expect(await sync().getAttribute('data-pending')).toBe('0')
  for (const id of ['acme-1', 'acme-2', 'acme-owed']) expect([id, await row('mirror', id).count(), await row('server', id).count()]).toEqual([id, 0, 0])

  // Back to acme: its items, and the owed write, which now reaches acme's partition.
  await chooseTenant('acme')
  for (const id of ['acme-1', 'acme-2', 'acme-owed']) await row('mirror', id).waitFor()
  await row('server', 'acme-owed').waitFor()
  await expect(row('server', 'acme-owed').locator('.note').textContent()).resolves.toBe('written offline for acme')
  expect(await row('mirror', 'after-big').count()).toBe(0)
  expect(demo.pageErrors).toEqual([])
  // The only console errors expected: the requests the cut network left unanswered.
  expect(demo.consoleErrors.slice(errorsBefore).filter((text) => !text.includes('net::ERR_EMPTY_RESPONSE'))).toEqual([])
})

test("the proxy passes on the demo's container only: the key signs for nothing else of an account", async () => {
  for (const path of ['dbs', 'dbs/idb-ttl-demo', 'dbs/idb-ttl-demo/colls/other/docs']) {
    const response = await demo.page.request.get(`${demo.url}__cosmos/server/${path}`)
    expect(response.status(), path).toBe(403)
  }
  expect((await demo.page.request.get(`${demo.url}__cosmos/server/dbs/idb-ttl-demo/colls/mirror`)).status()).toBe(200)
})

test("the proxy signs a request as the SDK signs it with the account's key", async () => {
  const key = Buffer.from('a key the page never sees').toString('base64')
  const date = new Date()
  // Method, REST path; what the SDK signs: resource type and link.
  const cases: [HTTPMethod, string, ResourceType, string][] = [
    [HTTPMethod.get, '/', ResourceType.none, ''],
    [HTTPMethod.get, '/dbs/d/colls/c', ResourceType.container, 'dbs/d/colls/c'],
    [HTTPMethod.post, '/dbs/d/colls/c/docs', ResourceType.item, 'dbs/d/colls/c'],
    [HTTPMethod.put, '/dbs/d/colls/c/docs/a%20b', ResourceType.item, 'dbs/d/colls/c/docs/a b'],
    [HTTPMethod.get, '/dbs/d/colls/c/pkranges', ResourceType.pkranges, 'dbs/d/colls/c'],
  ]
  for (const [method, path, type, link] of cases) {
    const { authorization } = await generateHeaders(key, method, type, link, date)
    expect(sign(key, method, path, date.toUTCString()), `${method} ${path}`).toBe(authorization)
  }
})
