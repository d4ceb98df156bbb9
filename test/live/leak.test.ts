// SPEC §11: after the last unsubscribe a live query holds no timer, no place on the bus and no
// lock. 1,000 subscriptions, each ended at once or after its first result, with writes meanwhile.
import { expect, test, vi } from 'vitest'
import { Member } from '../../src/platform/bus.js'
import { lockNames } from '../../src/platform/lock.js'
import { trackTimers } from '../purge/timers.js'
import { freshDB, manualClock, SOON } from '../helpers.js'

// Work, no waits (about 1 s alone): the bound is for a hang, with room for a loaded 2-core machine.
test('1,000 subscribe/unsubscribe cycles leave no timer, bus member or lock behind', { timeout: 30_000 }, async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 3600 } } })
  // Items that expire: each result arms an expiry timer.
  await db.putAll('s', [{ id: 'a', ttl: 60 }, { id: 'b' }])
  const joined = new Set<Member>()
  const left = new Set<Member>()
  // Members that joined for live queries (topic 'changed'), and members that left.
  const original = Member.prototype.on
  const leave = Member.prototype.leave
  Member.prototype.on = function (this: Member, topic, listener) {
    if (topic === 'changed') joined.add(this)
    return original.call(this, topic, listener as never) as never
  }
  Member.prototype.leave = function (this: Member) {
    left.add(this)
    return leave.call(this)
  }
  const timers = trackTimers('src/live/')
  try {
    const live = db.live('s')
    for (let i = 0; i < 1_000; i++) {
      let first!: () => void
      const emitted = new Promise<void>((resolve) => (first = resolve))
      const off = live.subscribe(() => first())
      if (i % 4 === 0) await emitted
      if (i % 50 === 0) await db.put('s', { id: `w${i}`, ttl: 30 })
      off()
    }
    expect(timers.created).toBeGreaterThan(0)
    // Timers of the bus's own delivery (a 0 ms task) may still be on their way; none of the query's.
    await vi.waitFor(() => expect(timers.pending).toBe(0), SOON)
    expect(joined.size).toBeGreaterThan(0)
    expect([...joined].filter((member) => !left.has(member))).toEqual([])
    expect(await lockNames('idb-ttl:live:')).toEqual([])
  } finally {
    timers.restore()
    Member.prototype.on = original
    Member.prototype.leave = leave
  }
})
