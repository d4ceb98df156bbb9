// idb-ttl/svelte in a real browser, with Svelte 5 components compiled by
// @sveltejs/vite-plugin-svelte (Sessions.svelte reads the store as `$sessions`, Runes.svelte
// through `fromStore`): an item leaves the list at its expiry instant with no write, a write in
// another tab re-renders, a changed parameter shows the new query's items and never the old
// one's, a handle given as a promise, and an unmount that leaves no subscription, lock or timer.
import { flushSync, mount, unmount } from 'svelte'
import { afterEach, expect, test } from 'vitest'
import type { TtlDB } from '../../../src/index.js'
import { live, stale } from '../../../src/svelte.js'
import Runes from './Runes.svelte'
import Sessions from './Sessions.svelte'
import { reactiveProps } from './props.svelte.js'
import { container, expireAt, recordDom, sessionsDB, shown, until, READING_MS } from './support.js'

const mounted: Record<string, any>[] = []
afterEach(() => mounted.splice(0).forEach((component) => unmount(component)))

function show<P extends Record<string, any>>(Component: Parameters<typeof mount<P, any>>[0], props: P) {
  const element = container()
  const component = mount(Component, { target: element, props })
  mounted.push(component)
  return { element, component }
}

test('with $store: an item leaves the rendered list at its expiry instant, with no write', async () => {
  const setup = await sessionsDB()
  const { db, clock } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1' }])
  const { element } = show(Sessions, { db })
  await until(() => expect(shown(element)).toBe('a,b'))
  const late = await expireAt(setup, clock.now + 60_000, element, 'b')
  expect(late).toBeLessThan(READING_MS)
})

test('with runes (fromStore): an item leaves the rendered list at its expiry instant, with no write', async () => {
  const setup = await sessionsDB()
  const { db, clock } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1' }])
  const { element } = show(Runes, { db })
  await until(() => expect(shown(element)).toBe('a,b'))
  const late = await expireAt(setup, clock.now + 60_000, element, 'b')
  expect(late).toBeLessThan(READING_MS)
})

test('a write in another tab re-renders', async () => {
  const setup = await sessionsDB()
  const { element } = show(Sessions, { db: setup.db })
  await until(() => expect(shown(element)).toBe(''))
  const other = await setup.otherTab()
  await other.put('sessions', { id: 'x', user: 'u2' })
  await until(() => expect(shown(element)).toBe('x'))
})

test("a changed parameter shows the new query's items, never the old one's, on one subscription at a time", async () => {
  const { db, subscriptions } = await sessionsDB()
  await db.putAll('sessions', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2' }, { id: 'c', user: 'u2' }])
  const props = reactiveProps({ db, user: 'u1' })
  const { element } = show(Sessions, props)
  await until(() => expect(shown(element)).toBe('a'))
  const states = recordDom(element)
  flushSync(() => (props.user = 'u2'))
  // Rendered at once: the old query's items are gone before the new query's first result.
  expect(['loading', 'b,c']).toContain(shown(element))
  await until(() => expect(shown(element)).toBe('b,c'))
  expect(states.filter((state) => state.split(',').includes('a'))).toEqual(['a'])
  expect(states.slice(1).every((state) => state === 'loading' || state === 'b,c')).toBe(true)
  expect(subscriptions).toEqual({ made: 2, open: 1 })
})

test('a handle given as the promise openTtlDB returned', async () => {
  const { db } = await sessionsDB()
  await db.put('sessions', { id: 'a', user: 'u1' })
  let resolve!: (db: TtlDB<any>) => void
  const promised = new Promise<TtlDB<any>>((r) => (resolve = r))
  const { element } = show(Sessions, { db: promised })
  expect(shown(element)).toBe('loading')
  resolve(db)
  await until(() => expect(shown(element)).toBe('a'))
})

test('unmounting leaves no subscription, lock or timer', async () => {
  const setup = await sessionsDB()
  const { db, subscriptions, timers } = setup
  await db.put('sessions', { id: 'a', user: 'u1', ttl: 60 })
  const { element, component } = show(Sessions, { db })
  await until(() => expect(shown(element)).toBe('a'))
  await until(() => expect(timers.pending).toHaveLength(1))
  expect(subscriptions).toEqual({ made: 1, open: 1 })
  expect(await setup.holdsLiveLock()).toBe(true)
  unmount(component)
  mounted.length = 0
  expect(subscriptions.open).toBe(0)
  expect(timers.pending).toEqual([])
  await until(async () => expect(await setup.holdsLiveLock()).toBe(false))
})

test('a store started again begins from undefined, not from items that may have expired since', async () => {
  const { db } = await sessionsDB()
  await db.put('sessions', { id: 'a', user: 'u1' })
  const sessions = live(db, 'sessions')
  const seen: unknown[] = []
  let off = sessions.subscribe((items) => seen.push(items?.map((item) => item.id)))
  await until(() => expect(seen).toEqual([undefined, ['a']]))
  off()
  seen.length = 0
  off = sessions.subscribe((items) => seen.push(items?.map((item) => item.id)))
  await until(() => expect(seen.at(-1)).toEqual(['a']))
  expect(seen[0]).toBeUndefined()
  off()
})

test('stale: the store gives an item once it expired, with its expiredAt, and unsubscribing ends its live query', async () => {
  const setup = await sessionsDB(86_400)
  const { db, clock, subscriptions, timers } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1' }])
  const values: unknown[] = []
  const off = stale(db, 'sessions').subscribe((value) => values.push(value))
  await until(() => expect(values.at(-1)).toEqual([]))
  await until(() => expect(timers.pending.map((timer) => timer.delay)).toEqual([60_000]))
  const expiry = clock.now + 60_000
  clock.set(expiry)
  timers.fire()
  await until(() => expect(values.at(-1)).toEqual([{ key: 'a', value: expect.objectContaining({ id: 'a' }), expiredAt: expiry }]))
  off()
  expect(subscriptions).toEqual({ made: 1, open: 0 })
})
