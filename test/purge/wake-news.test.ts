// A handle that is not the purger wakes it for what its writes make due (src/background/wake.ts),
// but only with news: writes of a second and a `ttl` it already announced die with those, so
// they post nothing more (a message per write cost a put about half a put again).
import { expect, test, vi } from 'vitest'
import { joinBus } from '../../src/platform/bus.js'
import type { WakeMessage } from '../../src/background/wake.js'
import { freshDB, manualClock, SOON, uniqueName } from '../helpers.js'

test('writes of a second and ttl already announced post no wake; a new ttl, a new second and a capped store do', async () => {
  const clock = manualClock()
  const name = uniqueName('wake-news')
  const stores = { s: { keyPath: 'id', defaultTtl: 60 }, capped: { keyPath: 'id', defaultTtl: 60, maxEntries: 100 } }
  const writer = await freshDB({ clock, stores, purge: { mode: 'off' } }, name)
  const heard: WakeMessage[] = []
  const listener = joinBus(name).on('wake', (message) => heard.push(message))
  try {
    for (let i = 0; i < 5; i++) await writer.put('s', { id: i })
    await writer.putAll('s', [{ id: 'a' }, { id: 'b', ttl: 30 }])
    await writer.put('s', { id: 'c', ttl: 30 })
    clock.advance(1_000)
    await writer.put('s', { id: 'd' })
    for (let i = 0; i < 3; i++) await writer.put('capped', { id: i })
    // Deliveries come in later tasks, in order: the last write's message is the last one heard.
    await vi.waitFor(() => expect(heard.filter((m) => m.store === 'capped')).toHaveLength(3), SOON)
    const second = (m: WakeMessage) => Math.floor(m.nowMs! / 1000) - Math.floor(clock.now / 1000)
    expect(heard.filter((m) => m.store === 's').map((m) => [second(m), m.ttls])).toEqual([
      [-1, [undefined]],
      [-1, [undefined, 30]],
      [0, [undefined]],
    ])
  } finally {
    listener.leave()
  }
})
