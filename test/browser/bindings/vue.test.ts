// idb-ttl/vue in a real browser, rendered by Vue's createApp and h: the scenarios of every binding
// (scenarios.ts), their changed parameter a ref read by an options getter; a ref or a getter set to
// an equal value that keeps the subscription, a reactive options object changed in place, a
// disposed effect scope that ends the subscription, and useStale.
import { createApp, effectScope, h, nextTick, reactive, ref, type App, type Ref } from 'vue'
import { afterEach, expect, test } from 'vitest'
import { useLive, useStale } from '../../../src/vue.js'
import { testScenarios, type Binding } from './scenarios.js'
import { container, sessionsDB, shown, until, type Session } from './support.js'

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

/**
 * The sessions list in Vue: `useLive(db, 'sessions')`, or with `user` a store name as a ref and the
 * options as a getter of a ref (a new object each time it runs), which `update` changes.
 */
const vueBinding: Binding = {
  async render(props) {
    const store = ref('sessions')
    const user = ref(props.user)
    const { element, app } = mount(() => (props.user === undefined ? useLive(props.db, 'sessions') : useLive(props.db, store, () => ({ index: 'byUser', query: user.value }))))
    return {
      element,
      async update(next) {
        user.value = next.user
        await nextTick()
      },
      async unmount() {
        apps.splice(apps.indexOf(app), 1)
        app.unmount()
      },
    }
  },
}

testScenarios(vueBinding)

test('a ref or a getter set to an equal value keeps the subscription', async () => {
  const { db, subscriptions } = await sessionsDB()
  await db.putAll('sessions', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2' }])
  const user = ref('u1')
  const store = ref('sessions')
  const { element } = mount(() => useLive(db, store, () => ({ index: 'byUser', query: user.value })))
  await until(() => expect(shown(element)).toBe('a'))
  // The same value again, and a store ref set to the same name: no new query.
  user.value = 'u2'
  user.value = 'u1'
  store.value = 'sessions'
  await nextTick()
  expect(shown(element)).toBe('a')
  expect(subscriptions).toEqual({ made: 1, open: 1 })
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
