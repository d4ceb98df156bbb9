// idb-ttl/vue in a real browser, rendered by Vue's createApp and h: an item leaves the list at its
// expiry instant with no write, a write in another tab re-renders, parameters as refs, getters and
// a reactive object (a change shows the new query's items and never the old one's; an equal value
// keeps the subscription), a handle given as a promise, and an unmount or a disposed effect scope
// that leaves no subscription, lock or timer.
import { createApp, effectScope, h, nextTick, reactive, ref, type App, type Ref } from 'vue'
import { afterEach, expect, test } from 'vitest'
import type { TtlDB } from '../../../src/index.js'
import { useLive, useStale } from '../../../src/vue.js'
import { container, expireAt, recordDom, sessionsDB, shown, until, type Session, READING_MS } from './support.js'

const apps: App[] = []
afterEach(() => apps.splice(0).forEach((app) => app.unmount()))

function list(items: Session[] | undefined) {
  return items === undefined ? h('p', 'loading') : h('ul', items.map((item) => h('li', { key: item.id }, item.id)))
}

/** Mounts a component that renders what `use()` (called in its setup) gives. */
function mount(use: () => Ref<unknown>) {
  const element = container()
  const app = createApp({ setup: () => { const items = use(); return () => list(items.value as Session[] | undefined) } })
  app.mount(element)
  apps.push(app)
  return { element, app }
}

test('an item leaves the rendered list at its expiry instant, with no write', async () => {
  const setup = await sessionsDB()
  const { db, clock } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1' }])
  const { element } = mount(() => useLive(db, 'sessions'))
  await until(() => expect(shown(element)).toBe('a,b'))
  const late = await expireAt(setup, clock.now + 60_000, element, 'b')
  expect(late).toBeLessThan(READING_MS)
})

test('a write in another tab re-renders', async () => {
  const setup = await sessionsDB()
  const { element } = mount(() => useLive(setup.db, 'sessions'))
  await until(() => expect(shown(element)).toBe(''))
  const other = await setup.otherTab()
  await other.put('sessions', { id: 'x', user: 'u2' })
  await until(() => expect(shown(element)).toBe('x'))
})

test("a ref or a getter that changes shows the new query's items, never the old one's; an equal value keeps the subscription", async () => {
  const { db, subscriptions } = await sessionsDB()
  await db.putAll('sessions', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2' }, { id: 'c', user: 'u2' }])
  const user = ref('u1')
  const store = ref('sessions')
  // A getter that makes a new object each time it runs.
  const { element } = mount(() => useLive(db, store, () => ({ index: 'byUser', query: user.value })))
  await until(() => expect(shown(element)).toBe('a'))
  const states = recordDom(element)
  user.value = 'u2'
  await nextTick()
  // Rendered at once: the old query's items are gone before the new query's first result.
  expect(['loading', 'b,c']).toContain(shown(element))
  await until(() => expect(shown(element)).toBe('b,c'))
  expect(states.filter((state) => state.split(',').includes('a'))).toEqual(['a'])
  expect(states.slice(1).every((state) => state === 'loading' || state === 'b,c')).toBe(true)
  expect(subscriptions).toEqual({ made: 2, open: 1 })
  // The same value again, and a store ref set to the same name: no new query.
  user.value = 'u1'
  user.value = 'u2'
  store.value = 'sessions'
  await nextTick()
  expect(subscriptions).toEqual({ made: 2, open: 1 })
})

test('a reactive options object whose query is changed in place', async () => {
  const { db } = await sessionsDB()
  await db.putAll('sessions', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2' }])
  const options = reactive({ index: 'byUser', query: 'u1' })
  const { element } = mount(() => useLive(db, 'sessions', options))
  await until(() => expect(shown(element)).toBe('a'))
  options.query = 'u2'
  await until(() => expect(shown(element)).toBe('b'))
})

test('a handle given as the promise openTtlDB returned', async () => {
  const { db } = await sessionsDB()
  await db.put('sessions', { id: 'a', user: 'u1' })
  let resolve!: (db: TtlDB<any>) => void
  const promised = new Promise<TtlDB<any>>((r) => (resolve = r))
  const { element } = mount(() => useLive(promised, 'sessions'))
  expect(shown(element)).toBe('loading')
  resolve(db)
  await until(() => expect(shown(element)).toBe('a'))
})

test('unmounting leaves no subscription, lock or timer', async () => {
  const setup = await sessionsDB()
  const { db, subscriptions, timers } = setup
  await db.put('sessions', { id: 'a', user: 'u1', ttl: 60 })
  const { element, app } = mount(() => useLive(db, 'sessions'))
  await until(() => expect(shown(element)).toBe('a'))
  await until(() => expect(timers.pending).toHaveLength(1))
  expect(subscriptions).toEqual({ made: 1, open: 1 })
  expect(await setup.holdsLiveLock()).toBe(true)
  app.unmount()
  apps.length = 0
  expect(subscriptions.open).toBe(0)
  expect(timers.pending).toEqual([])
  await until(async () => expect(await setup.holdsLiveLock()).toBe(false))
})

test('a disposed effect scope ends the subscription', async () => {
  const { db, subscriptions } = await sessionsDB()
  await db.put('sessions', { id: 'a', user: 'u1' })
  const scope = effectScope()
  const items = scope.run(() => useLive(db, 'sessions'))!
  await until(() => expect(items.value?.map((item) => item.id)).toEqual(['a']))
  expect(subscriptions.open).toBe(1)
  scope.stop()
  expect(subscriptions).toEqual({ made: 1, open: 0 })
})

test('useStale: an item once it expired, with its expiredAt; a query given as a getter follows its changes', async () => {
  const setup = await sessionsDB(86_400)
  const { db, clock, timers, subscriptions } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1', ttl: 60 }])
  const key = ref('a')
  const scope = effectScope()
  const items = scope.run(() => useStale(db, 'sessions', () => ({ query: key.value })))!
  await until(() => expect(items.value).toEqual([]))
  await until(() => expect(timers.pending.map((timer) => timer.delay)).toEqual([60_000]))
  const expiry = clock.now + 60_000
  clock.set(expiry)
  timers.fire()
  await until(() => expect(items.value?.map((entry) => [entry.key, entry.expiredAt])).toEqual([['a', expiry]]))
  key.value = 'b'
  await until(() => expect(items.value?.map((entry) => entry.key)).toEqual(['b']))
  scope.stop()
  expect(subscriptions).toEqual({ made: 2, open: 0 })
})
