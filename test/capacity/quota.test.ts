// SPEC §9 evictOnQuota against a small test disk (disk.ts): expired items go first, then opted-in
// stores give up live items a share at a time; a write that never fits leaves nothing behind.
// Real quotas in real browsers: test/e2e/quota.test.ts.
import { expect, test, vi } from 'vitest'
import type { ExpireEvent, PurgeReport } from '../../src/index.js'
import { freshDB, IN_FIREFOX, manualClock, uniqueName } from '../helpers.js'
import { smallDisk } from './disk.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 5 })
const nameOf = (e: unknown) => (e as DOMException).name
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i)

async function cacheAndKeep(evict: 'oldest' | 'soonest' = 'oldest') {
  const clock = manualClock()
  const db = await freshDB({
    clock,
    stores: { cache: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true, evict }, keep: { keyPath: 'id', defaultTtl: 3600 } },
  })
  return { clock, db }
}

// Firefox keeps evictOnQuota values in their rows (src/generations.ts): a disk whose deletions
// give no room back is not what it has, and its stores would not use generations there.
/**
 * WebKit (in memory and on disk) still lists two generations after the stream below, with or
 * without waiting for the list: whether a deletion stays blocked there or one is made again is not
 * known yet (issue #42's closing note), so that check runs in Node and Chromium only.
 */
const IN_WEBKIT = /AppleWebKit\//.test(globalThis.navigator?.userAgent ?? '') && !/Chrome\//.test(globalThis.navigator?.userAgent ?? '')

const disks: [string, boolean][] = [['a disk whose deletions give room back (Firefox)', true]]
if (!IN_FIREFOX) disks.push(['a disk where only deleting a database gives room back (Chromium, WebKit)', false])

test.each(disks)('%s: an opted-in store keeps accepting a stream of writes; a store without evictOnQuota keeps every item', async (_, deletesFree) => {
  const { clock, db } = await cacheAndKeep()
  const disk = smallDisk(20, { deletesFree })
  await db.putAll('keep', ids(0, 5).map((id) => ({ id })))
  const heard: ExpireEvent[] = []
  db.onExpire((e) => heard.push(e))
  const reports: PurgeReport[] = []
  db.onPurge((r) => reports.push(r))
  for (const id of ids(0, 100)) {
    await db.put('cache', { id, v: 'x'.repeat(100) })
    clock.advance(1_000)
  }
  await db.update('cache', 99, { v: 'changed' })
  await db.add('keep', { id: 'last' })
  expect(disk.room).toBeGreaterThanOrEqual(0)
  expect(await db.getAllKeys('keep')).toEqual([0, 1, 2, 3, 4, 'last'])
  const cached = await db.getAllKeys('cache')
  expect(cached.length).toBeGreaterThan(5)
  expect(cached).toEqual(ids(100 - cached.length, cached.length)) // the oldest went first
  expect(await db.get('cache', 99)).toMatchObject({ v: 'changed' })
  await until(() => expect(heard.flatMap((e) => e.items).length).toBe(100 - cached.length))
  expect(heard.every((e) => e.store === 'cache' && e.reason === 'evicted')).toBe(true)
  expect(heard.flatMap((e) => e.items.map((i) => i.key))).toEqual(ids(0, 100 - cached.length))
  // Values kept in generations are read from there before those are deleted.
  expect(heard.flatMap((e) => e.items).every((i) => (i.value as { v?: string }).v === 'x'.repeat(100))).toBe(true)
  expect(reports.filter((r) => r.store === 'cache').reduce((n, r) => n + (r.evicted ?? 0), 0)).toBe(100 - cached.length)
  expect(reports.filter((r) => r.store === 'keep')).toEqual([])
})

test('expired items are purged first: a full disk with expired items loses no live item', async () => {
  const { clock, db } = await cacheAndKeep()
  smallDisk(10)
  await db.putAll('cache', ids(0, 5).map((id) => ({ id }))) // the oldest, and live
  clock.advance(1_000)
  await db.putAll('cache', ids(5, 5).map((id) => ({ id, ttl: 1 })))
  clock.advance(1_000)
  await db.putAll('cache', ids(10, 3).map((id) => ({ id })))
  expect(await db.getAllKeys('cache')).toEqual([...ids(0, 5), ...ids(10, 3)])
})

test('a write that can never fit rejects with the original QuotaExceededError and writes nothing; only opted-in stores gave up items', async () => {
  const { db } = await cacheAndKeep()
  const disk = smallDisk(10)
  await db.putAll('keep', ids(0, 4).map((id) => ({ id })))
  await db.putAll('cache', ids(100, 3).map((id) => ({ id })))
  const error = await db.putAll('cache', ids(0, 20).map((id) => ({ id: `new-${id}` }))).catch((e: unknown) => e)
  expect(nameOf(error)).toBe('QuotaExceededError')
  expect((error as Error).message).toContain('test disk')
  expect(await db.getAllKeys('cache')).toEqual([])
  expect(await db.getAllKeys('keep')).toEqual(ids(0, 4))
  expect(disk.room).toBe(6)
  // A write to the store without evictOnQuota that does not fit: nothing of it, nothing of keep lost.
  await expect(db.putAll('keep', ids(10, 7).map((id) => ({ id })))).rejects.toMatchObject({ name: 'QuotaExceededError' })
  expect(await db.getAllKeys('keep')).toEqual(ids(0, 4))
})

test('with no store opted in, a full disk only purges expired items, then rejects', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600 } } })
  smallDisk(6)
  await db.putAll('s', [...ids(0, 2).map((id) => ({ id, ttl: 1 })), ...ids(2, 4).map((id) => ({ id }))])
  clock.advance(1_000)
  await db.putAll('s', [{ id: 'a' }, { id: 'b' }]) // fits once the two expired items are gone
  await expect(db.put('s', { id: 'c' })).rejects.toMatchObject({ name: 'QuotaExceededError' })
  expect(await db.getAllKeys('s')).toEqual([2, 3, 4, 5, 'a', 'b'])
})

test("under quota, an opted-in store with evict: 'soonest' gives up the items closest to expiry first", async () => {
  const { db } = await cacheAndKeep('soonest')
  smallDisk(4)
  // One write each: at this disk's size, each value fills a generation of its own.
  for (const item of [{ id: 'never', ttl: -1 }, { id: 'late', ttl: 7200 }, { id: 'soon', ttl: 60 }, { id: 'default' }]) await db.put('cache', item)
  await db.putAll('keep', [{ id: 'k1' }, { id: 'k2' }]) // two rounds of a quarter each
  expect(await db.getAllKeys('cache')).toEqual(['late', 'never'])
})

test('a disk whose deletions give no room back (Chromium before its LevelDB compacts), a store whose rows hold their values: one round of eviction, not the whole store', async () => {
  const db = await freshDB({
    clock: manualClock(),
    // autoIncrement with a keyPath: IndexedDB writes the key into the row, so the row keeps its value.
    stores: { cache: { keyPath: 'id', autoIncrement: true, defaultTtl: 3600, evictOnQuota: true }, keep: { keyPath: 'id', defaultTtl: 3600 } },
  })
  smallDisk(8, { deletesFree: false })
  await db.putAll('cache', ids(0, 8).map((id) => ({ id })))
  await expect(db.put('keep', { id: 'k' })).rejects.toMatchObject({ name: 'QuotaExceededError' })
  expect(await db.getAllKeys('cache')).toEqual(ids(2, 6)) // a quarter went, then the usage showed it freed nothing
})

test.each([
  ['touch', 'oldest', 'generations'],
  ['update', 'oldest', 'generations'],
  ['update', 'oldest', 'rows'],
  ['touch', 'soonest', 'rows'],
] as const)('%s of the first item in %s order at a full disk (values in %s): quota relief gives up other items, not that one, and the write goes through', async (kind, evict, layout) => {
  const clock = manualClock()
  // autoIncrement with a keyPath: the row keeps its value (src/layout/generation-index.ts).
  const cache = { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true, evict, ...(layout === 'rows' && { autoIncrement: true }) }
  const db = await freshDB({ clock, stores: { cache } })
  smallDisk(5)
  for (const id of ids(0, 5)) {
    await db.put('cache', { id, v: id })
    clock.advance(1_000)
  }
  // Item 0 is the oldest and the closest to expiry. Before, relief evicted it for its own write,
  // whose retry then found nothing: NOT_FOUND, the item and the update lost.
  const written = kind === 'touch' ? db.touch('cache', 0) : db.update('cache', 0, { v: 'changed' })
  await expect(written).resolves.toMatchObject({ id: 0, _ts: clock.now / 1000 })
  expect(await db.get('cache', 0)).toMatchObject({ id: 0, v: kind === 'touch' ? 0 : 'changed', _ts: clock.now / 1000 })
  const kept = await db.getAllKeys('cache')
  expect(kept).toContain(0)
  expect(kept.length).toBeGreaterThan(1) // others went, in evict order, but not all
})

test.skipIf(IN_FIREFOX || IN_WEBKIT)('a disk with room for one value: each write of a stream gives up the one before, its generation deleted, and lands in a new generation, not in the deleted one created again', async () => {
  const name = uniqueName('one-value')
  const db = await freshDB({ clock: manualClock(), stores: { cache: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } } }, name)
  // A large quota reported: a generation holds every value until relief deletes it.
  const disk = smallDisk(1, { quota: 1_000_000 })
  for (const id of ids(0, 5)) await db.put('cache', { id, v: id })
  // Before, the write after the one that filled the disk rejected with QuotaExceededError once
  // 2 s of retries were over: relief evicted the only item and deleted the store's current
  // generation, whose room the retry then spent creating it again for its value, which the rows'
  // check refused (it had left the registry), leaving no room for the new generation.
  expect(await db.getAll('cache')).toMatchObject([{ id: 4, v: 4 }])
  expect(disk.room).toBe(0)
  // One generation stays: the deleted one is not created again. WebKit lists a database whose
  // deletion is still under way for a moment after the request (a read of this page may still
  // hold it), so this waits for the list to come down to one, which it never does if it was made again.
  const generations = async () => (await indexedDB.databases()).filter((database) => database.name?.startsWith(`${name}~gen~`))
  await vi.waitFor(async () => expect(await generations()).toHaveLength(1), { timeout: 5_000, interval: 50 })
})

test.skipIf(IN_FIREFOX)('two writes at a full disk at once, the room of deleted generations coming back late: both land', async () => {
  const db = await freshDB({ clock: manualClock(), stores: { cache: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } } })
  let settled!: () => void
  const oneSettled = new Promise<void>((resolve) => (settled = resolve))
  // One generation holds every value. Its room comes back 300 ms after its deletion, or as soon
  // as one of the writes has settled, whichever comes first.
  smallDisk(4, { quota: 1_000_000, roomBack: () => Promise.race([oneSettled, new Promise<void>((resolve) => setTimeout(resolve, 300))]) })
  for (const id of ids(0, 4)) await db.put('cache', { id })
  const writes = [db.put('cache', { id: 'a' }), db.put('cache', { id: 'b' })]
  for (const write of writes) void write.then(settled, settled)
  // Before, the two reliefs evicted side by side; the one that did not delete the generation
  // itself found nothing left to give up and rejected with QuotaExceededError at once, without
  // waiting for the room the other's deletion was giving back.
  expect(await Promise.allSettled(writes)).toEqual([
    { status: 'fulfilled', value: 'a' },
    { status: 'fulfilled', value: 'b' },
  ])
  expect(await db.getAllKeys('cache')).toEqual(['a', 'b'])
})
