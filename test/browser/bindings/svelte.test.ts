// idb-ttl/svelte in a real browser, with Svelte 5 components compiled by
// @sveltejs/vite-plugin-svelte: the scenarios of every binding (scenarios.ts) with Sessions.svelte,
// which reads the store as `$sessions`, and the expiry one with Runes.svelte, which reads it through
// `fromStore`; a store started again, which begins from undefined; and stale.
import { flushSync, mount, unmount } from 'svelte'
import { afterEach, expect, test } from 'vitest'
import type { TtlDB } from '../../../src/index.js'
import { live, stale } from '../../../src/svelte.js'
import Runes from './Runes.svelte'
import Sessions from './Sessions.svelte'
import { reactiveProps } from './props.svelte.js'
import { testScenarios, type Binding, type Rendered } from './scenarios.js'
import { container, sessionsDB, until } from './support.js'

const mounted: Record<string, any>[] = []
afterEach(() => mounted.splice(0).forEach((component) => unmount(component)))

/** Mounts `Component` with `props` in a new container; `update` sets its props. */
function show<P extends Record<string, any>>(Component: Parameters<typeof mount<P, any>>[0], props: P, update: Rendered['update']): Rendered {
  const element = container()
  const component = mount(Component, { target: element, props })
  mounted.push(component)
  return {
    element,
    update,
    async unmount() {
      mounted.splice(mounted.indexOf(component), 1)
      unmount(component)
    },
  }
}

/** The sessions list in Svelte, read as `$sessions` (Sessions.svelte); its props a `$state` proxy that `update` sets. */
const storeBinding: Binding = {
  async render(initial) {
    const props = reactiveProps({ ...initial })
    return show(Sessions, props, async (next) => void flushSync(() => Object.assign(props, next)))
  },
}

/** The sessions list in Svelte, read through `fromStore` (Runes.svelte): all of a database's, no other props. */
const runesBinding: Binding = {
  render: async ({ db }) => show(Runes, { db: db as TtlDB<any> }, () => Promise.reject(new Error('Runes.svelte takes no other props'))),
}

testScenarios(storeBinding, undefined, 'with $store: ')
testScenarios(runesBinding, ['an item leaves the rendered list at its expiry instant, with no write'], 'with runes (fromStore): ')

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
