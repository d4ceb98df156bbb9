/**
 * Live queries across two realms (two tabs), each with its own copy of the library (vi.resetModules,
 * Node only), talking through IndexedDB, BroadcastChannel and Web Locks (a stand-in: Node has
 * none). A change in one reaches the other's live queries; a realm posts changes on the bus only
 * while another realm has live queries. Across real pages: test/browser/live.test.ts.
 */
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { manualClock, uniqueName } from '../helpers.js'
import { deleteAfter } from '../semantics/support.js'
import { ensureLocks } from '../purge/stubs.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 10_000, interval: 5 })
const stores = { s: { keyPath: 'id', defaultTtl: 3600 } }
let removeLocks = () => {}
const handles: TtlDB[] = []
beforeEach(() => void (removeLocks = ensureLocks()))
afterEach(() => {
  handles.splice(0).forEach((db) => db.close())
  removeLocks()
})

/** This realm's handle, then another realm's, on one database. */
async function twoRealms() {
  const name = deleteAfter(uniqueName('live-realms'))
  const clock = manualClock()
  const here = await openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  vi.resetModules()
  const other = (await import('../../src/index.js')) as typeof import('../../src/index.js')
  const there = await other.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  handles.push(here, there as unknown as TtlDB)
  return { here, there, clock }
}

test("a write in another realm reaches this realm's live query", async () => {
  const { here, there } = await twoRealms()
  const seen: string[][] = []
  here.live('s').subscribe((items) => seen.push(items.map((item: any) => item.id)))
  await until(() => expect(seen).toEqual([[]]))
  await there.put('s', { id: 'a' })
  await until(() => expect(seen).toEqual([[], ['a']]))
  await there.delete('s', 'a')
  await until(() => expect(seen).toEqual([[], ['a'], []]))
})

test('a realm posts its changes only while another realm has live queries', async () => {
  const { here, there } = await twoRealms()
  const posted: unknown[] = []
  const post = BroadcastChannel.prototype.postMessage
  BroadcastChannel.prototype.postMessage = function (this: BroadcastChannel, message: unknown) {
    if ((message as { topic?: string }).topic === 'changed') posted.push(message)
    return post.call(this, message)
  }
  try {
    // Neither realm has live queries: once 'there' has asked the locks, its writes post nothing.
    await until(async () => {
      posted.length = 0
      await there.put('s', { id: 'quiet' })
      expect(posted).toEqual([])
    })
    const seen: string[][] = []
    const off = here.live('s').subscribe((items) => seen.push(items.map((item: any) => item.id)))
    await until(() => expect(seen).toEqual([['quiet']]))
    // 'here' said it listens: the next write of 'there' is posted, and heard.
    await until(async () => {
      await there.put('s', { id: `heard` })
      expect(posted).not.toEqual([])
    })
    await until(() => expect(seen.at(-1)).toEqual(['heard', 'quiet']))
    off()
    // It stopped listening: 'there' asks the locks again and goes quiet.
    await until(async () => {
      posted.length = 0
      await there.put('s', { id: 'quiet' })
      expect(posted).toEqual([])
    })
  } finally {
    BroadcastChannel.prototype.postMessage = post
  }
})

test("a touch another realm's read owed reaches this realm's live query once it is written", async () => {
  const name = deleteAfter(uniqueName('live-realms-touch'))
  const clock = manualClock()
  const sliding = { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } }
  const here = await openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores: sliding })
  vi.resetModules()
  const other = (await import('../../src/index.js')) as typeof import('../../src/index.js')
  const there = await other.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores: sliding })
  handles.push(here, there as unknown as TtlDB)
  await here.put('s', { id: 'a' })
  const seen: number[] = []
  here.live('s').subscribe((items) => seen.push(...items.map((item: any) => item._ts)))
  await until(() => expect(seen).toHaveLength(1))
  clock.advance(5_000)
  // Written within a second by 'there' (MAX_DEFER_MS), which then tells the other realms.
  const read = await there.get('s', 'a')
  await until(() => expect(seen).toEqual([seen[0], read!._ts]))
})

test("two realms writing one key in the same millisecond: the second write reaches this realm's live query", async () => {
  const { here, there, clock } = await twoRealms()
  // Past every write order either realm gave before: both stamp this very millisecond.
  clock.set(1_800_000_000_000)
  const seen: unknown[][] = []
  here.live('s').subscribe((items) => seen.push(items.map((item: any) => item.n)))
  await until(() => expect(seen).toEqual([[]]))
  await here.put('s', { id: 'a', n: 1 })
  await until(() => expect(seen).toEqual([[], [1]]))
  await there.put('s', { id: 'a', n: 2 })
  await until(() => expect(seen).toEqual([[], [1], [2]]))
})
