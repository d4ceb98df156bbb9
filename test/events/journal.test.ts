// The purge's journal (src/purge/journal.ts): expiry events a realm deleted and could not publish
// before it ended are published by the next purge, to each listening handle once. Across real
// pages: test/browser/expire.test.ts.
import { afterEach, expect, test, vi } from 'vitest'
import type { ExpireEvent } from '../../src/index.js'
import { realmId } from '../../src/platform/realms.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { ensureLocks } from '../purge/stubs.js'

const JOURNAL = '__idb_ttl_journal'
const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 5 })
const keysOf = (events: ExpireEvent[]) => events.flatMap((e) => e.items.map((i) => i.key))
const stores = { s: { keyPath: 'id', defaultTtl: 10 } }
const entry = (writer: string, key: string) => ({ writer, store: 's', reason: 'expired', items: [{ key, value: { id: key, _ts: 1 } }] })

let restoreLocks: () => void = () => {}
afterEach(() => restoreLocks())

test("a realm that ended left events in the journal: the next purge publishes them, each handle hears them once; a living realm's are left to it", async () => {
  restoreLocks = ensureLocks()
  const clock = manualClock()
  const name = uniqueName('journal')
  const first = await freshDB({ clock, stores }, name)
  const second = await freshDB({ clock, stores }, name)
  const heard = { first: [] as ExpireEvent[], second: [] as ExpireEvent[] }
  first.onExpire((e) => heard.first.push(e))
  second.onExpire((e) => heard.second.push(e))
  await first.raw.put(JOURNAL, entry('a-realm-that-ended', 'x'), 'j1')
  await first.raw.put(JOURNAL, entry(realmId()!, 'mine'), 'j9')

  await first.purgeExpired()
  await until(() => expect([keysOf(heard.first), keysOf(heard.second)]).toEqual([['x'], ['x']]))
  expect(heard.first[0]).toEqual({ store: 's', reason: 'expired', items: [{ key: 'x', value: { id: 'x', _ts: 1 } }] })
  expect(await first.raw.getAllKeys(JOURNAL)).toEqual(['j9'])

  // Published again (a realm that ended between posting and forgetting, or two purges at once),
  // then a later event: the later one arrives, the repeat does not.
  await first.raw.put(JOURNAL, entry('a-realm-that-ended', 'x'), 'j1')
  await first.raw.put(JOURNAL, entry('a-realm-that-ended', 'later'), 'j2')
  await second.purgeExpired()
  await until(() => expect(keysOf(heard.first)).toContain('later'))
  await until(() => expect(keysOf(heard.second)).toContain('later'))
  expect([keysOf(heard.first), keysOf(heard.second)]).toEqual([['x', 'later'], ['x', 'later']])
  expect(await first.raw.getAllKeys(JOURNAL)).toEqual(['j9'])
})

test('a purge journals what it deleted for listeners, and forgets it once published', async () => {
  restoreLocks = ensureLocks()
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  const heard: ExpireEvent[] = []
  db.onExpire((e) => heard.push(e))
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }])
  clock.advance(10_000)
  const journaled: unknown[] = []
  const put = IDBObjectStore.prototype.put
  const spy = vi.spyOn(IDBObjectStore.prototype, 'put').mockImplementation(function (this: IDBObjectStore, value, key) {
    if (this.name === JOURNAL) journaled.push(value)
    return put.call(this, value, key)
  })
  try {
    expect(await db.purgeExpired('s')).toBe(2)
  } finally {
    spy.mockRestore()
  }
  expect(journaled).toEqual([{ writer: realmId(), store: 's', reason: 'expired', items: expect.any(Array) }])
  const items = (journaled[0] as { items: { key: string; value: unknown }[] }).items
  expect(items.map((i) => i.key).sort()).toEqual(['a', 'b'])
  expect(items).toContainEqual({ key: 'a', value: { id: 'a', _ts: Math.floor((clock.now - 10_000) / 1000) } })
  await until(() => expect(keysOf(heard).sort()).toEqual(['a', 'b']))
  await until(async () => expect(await db.raw.count(JOURNAL)).toBe(0))
})
