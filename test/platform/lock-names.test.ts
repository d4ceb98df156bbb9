/**
 * Web Lock names carry the database's name (src/platform/lock-name.ts) and a random id
 * (src/platform/lock.ts, `uniqueId`). `crypto.randomUUID` is
 * missing outside secure contexts — a page served over plain http from a LAN address, as a phone
 * reaching a dev server sees it — and in browsers older than Chrome 92, Firefox 95, Safari 15.4;
 * listening and sliding reads must work there all the same.
 */
import { afterEach, expect, test, vi } from 'vitest'
import { lockSafe } from '../../src/platform/lock-name.js'
import { freshDB, IN_FIREFOX, manualClock, SOON, uniqueName } from '../helpers.js'
import { ensureLocks } from '../purge/stubs.js'

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

test('a database name is carried into lock names whole: lone surrogates (valid in a name, refused by encodeURIComponent) included, no two names alike, none the start of another', () => {
  const names = ['a', 'a:b', 'a%3Ab', '\uD800', '\uD801', '%ud800', 'x\uDC00y', '\uD83D\uDE00', '']
  const safe = names.map(lockSafe)
  expect(new Set(safe).size).toBe(names.length)
  for (const [i, one] of safe.entries()) {
    for (const [j, other] of safe.entries()) if (i !== j) expect(`${other}:`.startsWith(`${one}:`), `${names[i]} / ${names[j]}`).toBe(false)
  }
  // What encodeURIComponent takes, it still gives (lock names of earlier versions stay the same).
  expect(lockSafe('a:b \uD83D\uDE00')).toBe(encodeURIComponent('a:b \uD83D\uDE00'))
})

test("a database whose name holds a lone surrogate takes every call that holds a Web Lock: the settings held, a live query, onExpire, a sliding read (Firefox's IndexedDB refuses such a name at open, with its own error)", async () => {
  const restore = ensureLocks()
  try {
    const clock = manualClock()
    const opening = freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } } }, uniqueName('lone-\uD800'))
    if (IN_FIREFOX) {
      // Firefox's IndexedDB refuses such a name itself: the open rejects with its DOMException, not a URIError of ours.
      await expect(opening).rejects.toMatchObject({ name: 'UnknownError' })
      return
    }
    const db = await opening
    const seen: unknown[][] = []
    const live = db.live('s').subscribe((items) => seen.push(items.map((item) => (item as { id: string }).id)))
    let off = () => {}
    const heard = new Promise<unknown[]>((resolve) => (off = db.onExpire((event) => resolve(event.items.map((item) => item.key)))))
    await db.put('s', { id: 'a' })
    clock.advance(5_000)
    expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
    await db.setDefaultTtl('s', 20)
    expect(await db.expiresAt('s', 'a')).toBe(clock.now + 20_000)
    await vi.waitFor(() => expect(seen.at(-1)).toEqual(['a']), SOON)
    clock.advance(21_000)
    expect(await db.purgeExpired('s')).toBe(1)
    expect(await heard).toEqual(['a'])
    off()
    live()
  } finally {
    restore()
  }
})
