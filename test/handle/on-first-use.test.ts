// Issue #44: what only some apps use is loaded by the page entries on first use, each through a
// loader the entry hands in (assembly/open-full.ts), counted here: an app that does not use it
// never calls its loader, and a first call made while it loads loses nothing and answers as
// before (the load is held until the test lets it go).
import { expect, test } from 'vitest'
import { chunks } from '../lazy/loaders.js'
import { inlineBackground } from '../../src/background/inline.js'
import type { PurgeReport } from '../../src/events/reports.js'
import type { OpenTtlDBOptions } from '../../src/rules/types.js'
import { smallDisk } from '../capacity/disk.js'
import { manualClock, SOON, uniqueName } from '../helpers.js'
import { T0 } from '../semantics/support.js'

function counted() {
  const load = chunks()
  const open = (options: Partial<OpenTtlDBOptions>) => load.open(uniqueName(), options, inlineBackground)
  return { load, open }
}

test('an open that declares no touchOnRead loads no touches; one that does waits for them, and its first read restarts the countdown', async () => {
  const { load, open } = counted()
  const clock = manualClock(T0)
  const plain = await open({ clock })
  await plain.put('s', { id: 1 })
  await plain.get('s', 1)
  plain.close()
  expect(load.touches.loads).toBe(0)
  load.touches.hold()
  const opening = open({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } } })
  await expect.poll(() => load.touches.loads, SOON).toBe(1)
  load.touches.release()
  const db = await opening
  await db.put('s', { id: 1 })
  clock.advance(8_000)
  expect(await db.get('s', 1)).toMatchObject({ id: 1, _ts: (T0 + 8_000) / 1000 })
  // Past the write's expiry, live by the read's touch.
  clock.advance(8_000)
  expect(await db.get('s', 1)).toMatchObject({ id: 1 })
  expect(load.touches.loads).toBe(1)
  db.close()
})

test('live queries load what follows them at the first subscription, not at db.live; a change made while it loads is in the first result, and later ones follow', async () => {
  const { load, open } = counted()
  const db = await open({})
  await db.put('s', { id: 1 })
  const query = db.live('s')
  expect(load.follow.loads).toBe(0)
  load.follow.hold()
  const seen: number[][] = []
  const off = query.subscribe((items) => seen.push(items.map((item) => (item as { id: number }).id)))
  await expect.poll(() => load.follow.loads, SOON).toBe(1)
  await db.put('s', { id: 2 })
  load.follow.release()
  await expect.poll(() => seen.at(-1), SOON).toEqual([1, 2])
  await db.put('s', { id: 3 })
  await expect.poll(() => seen.at(-1), SOON).toEqual([1, 2, 3])
  off()
  // A second query of the handle: loaded once.
  const again: number[][] = []
  const offAgain = db.live('s').subscribe((items) => again.push(items.map((item) => (item as { id: number }).id)))
  await expect.poll(() => again.at(-1), SOON).toEqual([1, 2, 3])
  offAgain()
  expect(load.follow.loads).toBe(1)
  db.close()
})

test('a handle closed while what follows its live query loads completes the subscriber at once', async () => {
  const { load, open } = counted()
  const db = await open({})
  await db.put('s', { id: 1 })
  load.follow.hold()
  const events: string[] = []
  db.live('s').subscribe({ next: () => events.push('next'), complete: () => events.push('complete') })
  await expect.poll(() => load.follow.loads, SOON).toBe(1)
  db.close()
  expect(events).toEqual(['complete'])
  load.follow.release()
})

test('the stale reads load at the first getStale, not before; one asked while they load answers the item as before', async () => {
  const { load, open } = counted()
  const clock = manualClock(T0)
  const db = await open({ clock, stores: { s: { keyPath: 'id', defaultTtl: 10, keepExpired: 3600 } } })
  await db.put('s', { id: 1 })
  clock.advance(11_000)
  expect(await db.get('s', 1)).toBeUndefined()
  expect(await db.getAll('s')).toEqual([])
  expect(load.stale.loads).toBe(0)
  load.stale.hold()
  const stale = db.getStale('s', 1)
  const all = db.getAllStale('s')
  await expect(db.getStale('nope' as never, 1)).rejects.toMatchObject({ code: 'UNKNOWN_STORE' })
  // One load for both: the handle keeps the chunk it asked for (no import() per call).
  expect(load.stale.loads).toBe(1)
  load.stale.release()
  expect(await stale).toEqual({ value: expect.objectContaining({ id: 1 }), expiredAt: T0 + 10_000 })
  expect(await all).toEqual([{ key: 1, value: expect.objectContaining({ id: 1 }), expiredAt: T0 + 10_000 }])
  db.close()
})

test('the round of eviction comes with the steps of relief at the first full disk, in one load; its report, made while they load, reaches onPurge', async () => {
  const { load, open } = counted()
  const disk = smallDisk(3)
  const db = await open({ stores: { s: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true } } })
  const reports: PurgeReport[] = []
  db.onPurge((report) => reports.push(report))
  for (let id = 0; disk.room > 0; id++) await db.put('s', { id })
  expect(load.relief.loads).toBe(0)
  load.relief.hold()
  const over = db.put('s', { id: 'over' })
  await expect.poll(() => load.relief.loads, SOON).toBe(1)
  load.relief.release()
  await over
  expect(load.relief.loads).toBe(1)
  expect(reports).toEqual([expect.objectContaining({ store: 's', evicted: 1, deleted: 1 })])
  expect(await db.get('s', 'over')).toMatchObject({ id: 'over' })
  db.close()
})
