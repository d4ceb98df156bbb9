/**
 * The scenarios every framework binding passes, written once: react.test.ts, vue.test.ts and
 * svelte.test.ts each drive them with their own renderer (`Binding`) of one component, the live
 * sessions of a database (of one user when `user` is set), and keep in their own file what only
 * their framework has.
 */
import { expect, test } from 'vitest'
import type { TtlDB } from '../../../src/index.js'
import { expireAt, READING_MS, recordDom, sessionsDB, shown, until } from './support.js'

export interface ListProps {
  db: TtlDB<any> | Promise<TtlDB<any>>
  user?: string
}

export interface Rendered {
  element: HTMLElement
  /** Renders again with `props`: when it resolves the DOM shows what the framework rendered at once. */
  update(props: ListProps): Promise<void>
  unmount(): Promise<void>
}

/** A framework's way to render the sessions list into a new container (removed after the test). */
export interface Binding {
  render(props: ListProps): Promise<Rendered>
  /** Subscriptions a mount makes: 2 under React's StrictMode, which mounts, unmounts and mounts again. */
  subscriptionsOnMount?: number
}

const scenarios = {
  'an item leaves the rendered list at its expiry instant, with no write': async (binding: Binding) => {
    const setup = await sessionsDB()
    const { db, clock } = setup
    await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1' }])
    const { element } = await binding.render({ db })
    await until(() => expect(shown(element)).toBe('a,b'))
    const late = await expireAt(setup, clock.now + 60_000, element, 'b')
    expect(late).toBeLessThan(READING_MS)
  },

  'a write in another tab re-renders': async (binding: Binding) => {
    const setup = await sessionsDB()
    const { element } = await binding.render({ db: setup.db })
    await until(() => expect(shown(element)).toBe(''))
    const other = await setup.otherTab()
    await other.put('sessions', { id: 'x', user: 'u2' })
    await until(() => expect(shown(element)).toBe('x'))
    await other.delete('sessions', 'x')
    await until(() => expect(shown(element)).toBe(''))
  },

  "a changed parameter shows the new query's items, never the old one's, on one subscription at a time": async (binding: Binding) => {
    const { db, subscriptions } = await sessionsDB()
    await db.putAll('sessions', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2' }, { id: 'c', user: 'u2' }])
    const { element, update } = await binding.render({ db, user: 'u1' })
    await until(() => expect(shown(element)).toBe('a'))
    const states = recordDom(element)
    await update({ db, user: 'u2' })
    // Rendered at once: the old query's items are gone before the new query's first result.
    expect(['loading', 'b,c']).toContain(shown(element))
    await until(() => expect(shown(element)).toBe('b,c'))
    expect(states.filter((state) => state.split(',').includes('a'))).toEqual(['a'])
    expect(states.slice(1).every((state) => state === 'loading' || state === 'b,c')).toBe(true)
    expect(subscriptions).toEqual({ made: 2, open: 1 })
  },

  'a handle given as the promise openTtlDB returned': async (binding: Binding) => {
    const { db } = await sessionsDB()
    await db.put('sessions', { id: 'a', user: 'u1' })
    let resolve!: (db: TtlDB<any>) => void
    const promised = new Promise<TtlDB<any>>((r) => (resolve = r))
    const { element } = await binding.render({ db: promised })
    expect(shown(element)).toBe('loading')
    resolve(db)
    await until(() => expect(shown(element)).toBe('a'))
  },

  'unmounting leaves no subscription, lock or timer': async (binding: Binding) => {
    const setup = await sessionsDB()
    const { db, subscriptions, timers } = setup
    await db.put('sessions', { id: 'a', user: 'u1', ttl: 60 })
    const { element, unmount } = await binding.render({ db })
    await until(() => expect(shown(element)).toBe('a'))
    await until(() => expect(timers.pending).toHaveLength(1))
    // However many subscriptions the mount made, one stays.
    expect(subscriptions).toEqual({ made: binding.subscriptionsOnMount ?? 1, open: 1 })
    expect(await setup.holdsLiveLock()).toBe(true)
    await unmount()
    expect(subscriptions.open).toBe(0)
    expect(timers.pending).toEqual([])
    await until(async () => expect(await setup.holdsLiveLock()).toBe(false))
  },
}

export type Scenario = keyof typeof scenarios

/** Declares a test of each scenario in `which` (all by default), driven by `binding`, named `prefix` + the scenario. */
export function testScenarios(binding: Binding, which = Object.keys(scenarios) as Scenario[], prefix = ''): void {
  for (const name of which) test(prefix + name, () => scenarios[name](binding))
}
