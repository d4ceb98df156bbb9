// SPEC §7 and §11: a live query of a `touchOnRead` store shows the live items as a read of the
// page would, touches the page owes and has not written yet counted (it touches nothing itself).
// An item read just before its old expiry stays in the result; the touch shows at once.
import { afterEach, expect, test, vi } from 'vitest'
import { freshDB, manualClock } from '../helpers.js'
import { captureExpiryTimers, captureTimers } from './timers.js'

const until = (check: () => Promise<void> | void) => vi.waitFor(check, { timeout: 5_000, interval: 5 })
const stores = { sliding: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } }
type Item = { id: string; _ts: number }

const offs: (() => void)[] = []
afterEach(() => offs.splice(0).forEach((off) => off()))

/** A store holding the item 'a', and what a live query of it emitted (it emits at once). */
async function watchingOne() {
  const clock = manualClock()
  const db = await freshDB({ clock, stores })
  await db.put('sliding', { id: 'a' })
  const items: Item[][] = []
  offs.push(db.live('sliding').subscribe((got: Item[]) => items.push(got)))
  return { clock, db, items }
}

test('an item read before its old expiry stays in the result while its touch is still owed, and its new _ts shows at once', async () => {
  const timers = captureExpiryTimers()
  // The touch's write waits for this timer: the test holds it, so the touch stays owed.
  const touchWrite = captureTimers('reads/touch')
  try {
    const { clock, db, items } = await watchingOne()
    await until(() => expect(timers.pending.map((t) => t.delay)).toEqual([10_000]))
    clock.advance(5_000)
    // The read touches 'a': it now expires 10 s after it.
    const read = await db.get('sliding', 'a')
    expect(read!._ts).toBe(items[0][0]._ts + 5)
    await until(() => expect(items.at(-1)).toEqual([read]))
    clock.advance(5_000)
    // The old expiry: the query reads again and keeps 'a'.
    timers.fire()
    await until(() => expect(timers.pending.map((t) => t.delay)).toEqual([5_000]))
    expect(items.at(-1)).toEqual([read])
    expect(await db.raw.get('sliding', 'a'), 'the touch is still owed').toMatchObject({ _ts: items[0][0]._ts })
    expect(touchWrite.pending).toHaveLength(1)
    // Once written, the result is the same: nothing more is emitted.
    touchWrite.fire()
    await until(async () => expect(await db.raw.get('sliding', 'a')).toMatchObject({ _ts: read!._ts }))
    const emitted = items.length
    await db.put('sliding', { id: 'b' })
    await until(() => expect(items.at(-1)?.map((item) => item.id)).toEqual(['a', 'b']))
    expect(items).toHaveLength(emitted + 1)
  } finally {
    touchWrite.restore()
    timers.restore()
  }
})

test('a live query touches nothing: watching an item does not keep it alive', async () => {
  const timers = captureExpiryTimers()
  try {
    const { clock, db, items } = await watchingOne()
    await until(() => expect(items).toHaveLength(1))
    clock.advance(9_000)
    await db.put('sliding', { id: 'b' })
    await until(() => expect(items.at(-1)?.map((item) => item.id)).toEqual(['a', 'b']))
    clock.advance(1_000)
    timers.fire()
    await until(() => expect(items.at(-1)?.map((item) => item.id)).toEqual(['b']))
    expect(await db.raw.get('sliding', 'a')).toMatchObject({ _ts: items[0][0]._ts })
  } finally {
    timers.restore()
  }
})
