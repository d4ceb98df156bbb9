// Who listens to expiry events: per handle, per store filter, in this realm and across tabs.
import { expect, test, vi } from 'vitest'
import { ExpiryListeners, type ExpireEvent } from '../../src/events/listeners.js'
import { ListeningWatch, listeningStores } from '../../src/events/listening.js'
import { joinBus } from '../../src/platform/bus.js'
import { SOON, uniqueName } from '../helpers.js'
import { ensureLocks } from '../purge/stubs.js'

const event = (store: string): ExpireEvent => ({ store, reason: 'expired', items: [{ key: 1, value: { id: 1, _ts: 0 } }] })

test('listeners get the events of the stores they asked for; a throwing listener stops no other', () => {
  const listeners = new ExpiryListeners(uniqueName())
  const all: string[] = []
  const sessions: string[] = []
  listeners.add(() => {
    throw new Error('listener bug')
  })
  const offAll = listeners.add((e) => all.push(e.store))
  listeners.add((e) => sessions.push(e.store), { stores: ['sessions'] })
  listeners.deliver(event('sessions'))
  listeners.deliver(event('events'))
  offAll()
  listeners.deliver(event('sessions'))
  expect(all).toEqual(['sessions', 'events'])
  expect(sessions).toEqual(['sessions', 'sessions'])
})

test('listeningStores unites the filters of every handle of the database, and forgets removed listeners', async () => {
  const name = uniqueName()
  const first = new ExpiryListeners(name)
  const second = new ExpiryListeners(name)
  const other = new ExpiryListeners(uniqueName())
  expect(await listeningStores(name)).toBeUndefined()
  const offA = first.add(() => {}, { stores: ['a'] })
  other.add(() => {})
  second.add(() => {}, { stores: ['b'] })
  expect(await listeningStores(name)).toEqual(new Set(['a', 'b']))
  const offAll = second.add(() => {})
  expect(await listeningStores(name)).toBe('*')
  offAll()
  offA()
  // A released Web Lock leaves the browser's list a moment later: until then values are read
  // for nothing, which costs a little and loses nothing.
  await vi.waitFor(async () => expect(await listeningStores(name)).toEqual(new Set(['b'])), SOON)
  second.clear()
  other.clear()
  await vi.waitFor(async () => expect(await listeningStores(name)).toBeUndefined(), SOON)
})

test('a handle that starts listening says so on the bus, with its stores', async () => {
  const name = uniqueName()
  const heard: unknown[] = []
  const member = joinBus(name).on('listening', (stores) => heard.push(stores))
  const listeners = new ExpiryListeners(name)
  listeners.add(() => {}, { stores: ['a'] })
  listeners.add(() => {})
  await vi.waitFor(() => expect(heard).toEqual([['a'], '*']), SOON)
  listeners.clear()
  member.leave()
})

test('a purge asks Web Locks who listens once, and hears on the bus of a listener another realm adds meanwhile', async () => {
  const restore = ensureLocks()
  const name = uniqueName()
  const watch = new ListeningWatch(name)
  try {
    const query = vi.spyOn(navigator.locks, 'query')
    expect(await watch.wants('a')).toBe(false)
    expect(await watch.wants('a')).toBe(false)
    expect(query).toHaveBeenCalledTimes(1)
    // A handle of another tab starts listening to 'a' (its own realm's handles are not seen here).
    const tab = joinBus(name)
    tab.post('listening', ['a'])
    tab.leave()
    await vi.waitFor(async () => expect(await watch.wants('a')).toBe(true), SOON)
    expect(await watch.wants('b')).toBe(false)
    expect(query).toHaveBeenCalledTimes(1)
  } finally {
    watch.close()
    restore()
  }
})
