/**
 * Web Lock names carry a random id (src/platform/lock.ts, `uniqueId`). `crypto.randomUUID` is
 * missing outside secure contexts — a page served over plain http from a LAN address, as a phone
 * reaching a dev server sees it — and in browsers older than Chrome 92, Firefox 95, Safari 15.4;
 * listening and sliding reads must work there all the same.
 */
import { afterEach, expect, test } from 'vitest'
import { freshDB, manualClock } from '../helpers.js'

const own = Object.getOwnPropertyDescriptor(crypto, 'randomUUID')
afterEach(() => {
  if (own) Object.defineProperty(crypto, 'randomUUID', own)
  else delete (crypto as { randomUUID?: unknown }).randomUUID
})

/** Hides `crypto.randomUUID` until the test ends (an own property shadows the prototype's). */
function withoutRandomUUID(): void {
  Object.defineProperty(crypto, 'randomUUID', { value: undefined, configurable: true, writable: true })
}

test('onExpire and a sliding read work where crypto.randomUUID is missing', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } } })
  withoutRandomUUID()
  expect(crypto.randomUUID).toBeUndefined()

  let off = () => {}
  const heard = new Promise<unknown[]>((resolve) => (off = db.onExpire((event) => resolve(event.items.map((item) => item.key)))))
  await db.put('s', { id: 'a' })
  clock.advance(5_000)
  // A read of a sliding store owes a touch, held under a lock named with a random id.
  expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
  expect(await db.expiresAt('s', 'a')).toBe(clock.now + 10_000)
  clock.advance(11_000)
  expect(await db.purgeExpired('s')).toBe(1)
  expect(await heard).toEqual(['a'])
  off()
})
