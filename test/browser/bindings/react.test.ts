// idb-ttl/react in a real browser, rendered by react-dom/client: an item leaves the list at its
// expiry instant with no write, a write in another tab re-renders, a changed parameter shows the
// new query's items and never the old one's, a handle given as a promise, an inline options
// literal that does not resubscribe, StrictMode's double mount, and an unmount that leaves no
// subscription, lock or timer; useStale, whose stale list an item joins as it leaves the live one.
import { act, createElement, StrictMode, type ReactNode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, expect, test } from 'vitest'
import type { TtlDB } from '../../../src/index.js'
import { useLive, useLiveItem, useStale } from '../../../src/react.js'
import { container, expireAt, recordDom, sessionsDB, shown, until, type Session, READING_MS } from './support.js'

const g = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
/** Runs `work` in act() (rendering and unmounting flush at once); emissions arrive outside it, as in an app. */
async function inAct(work: () => void) {
  g.IS_REACT_ACT_ENVIRONMENT = true
  try {
    await act(async () => work())
  } finally {
    g.IS_REACT_ACT_ENVIRONMENT = false
  }
}

const roots: Root[] = []
afterEach(async () => {
  for (const root of roots.splice(0)) await inAct(() => root.unmount())
})

function list(items: Session[] | undefined): ReactNode {
  return items === undefined ? createElement('p', null, 'loading') : createElement('ul', null, items.map((item) => createElement('li', { key: item.id }, item.id)))
}

function Sessions({ db, user }: { db: TtlDB<any> | Promise<TtlDB<any>>; user?: string }) {
  // An inline literal, a new object at every render.
  return list(useLive(db, 'sessions', user === undefined ? undefined : { index: 'byUser', query: user }) as Session[] | undefined)
}

async function render(node: ReactNode) {
  const element = container()
  const root = createRoot(element)
  roots.push(root)
  await inAct(() => root.render(node))
  return { element, root }
}

test('an item leaves the rendered list at its expiry instant, with no write', async () => {
  const setup = await sessionsDB()
  const { db, clock } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1' }])
  const { element } = await render(createElement(Sessions, { db }))
  await until(() => expect(shown(element)).toBe('a,b'))
  const late = await expireAt(setup, clock.now + 60_000, element, 'b')
  expect(late).toBeLessThan(READING_MS)
})

test('a write in another tab re-renders', async () => {
  const setup = await sessionsDB()
  const { element } = await render(createElement(Sessions, { db: setup.db }))
  await until(() => expect(shown(element)).toBe(''))
  const other = await setup.otherTab()
  await other.put('sessions', { id: 'x', user: 'u2' })
  await until(() => expect(shown(element)).toBe('x'))
  await other.delete('sessions', 'x')
  await until(() => expect(shown(element)).toBe(''))
})

test("a changed parameter shows the new query's items, never the old one's, on one subscription at a time", async () => {
  const { db, subscriptions } = await sessionsDB()
  await db.putAll('sessions', [{ id: 'a', user: 'u1' }, { id: 'b', user: 'u2' }, { id: 'c', user: 'u2' }])
  const { element, root } = await render(createElement(Sessions, { db, user: 'u1' }))
  await until(() => expect(shown(element)).toBe('a'))
  const states = recordDom(element)
  await inAct(() => root.render(createElement(Sessions, { db, user: 'u2' })))
  // Rendered at once: the old query's items are gone before the new query's first result.
  expect(['loading', 'b,c']).toContain(shown(element))
  await until(() => expect(shown(element)).toBe('b,c'))
  expect(states.filter((state) => state.split(',').includes('a'))).toEqual(['a'])
  expect(states.slice(1).every((state) => state === 'loading' || state === 'b,c')).toBe(true)
  expect(subscriptions).toEqual({ made: 2, open: 1 })
})

test('an inline options literal equal to the last one keeps the subscription', async () => {
  const { db, subscriptions } = await sessionsDB()
  await db.put('sessions', { id: 'a', user: 'u1' })
  const { element, root } = await render(createElement(Sessions, { db, user: 'u1' }))
  await until(() => expect(shown(element)).toBe('a'))
  for (let i = 0; i < 3; i++) await inAct(() => root.render(createElement(Sessions, { db, user: 'u1' })))
  expect(shown(element)).toBe('a')
  expect(subscriptions).toEqual({ made: 1, open: 1 })
})

test('a handle given as the promise openTtlDB returned', async () => {
  const { db } = await sessionsDB()
  await db.put('sessions', { id: 'a', user: 'u1' })
  let resolve!: (db: TtlDB<any>) => void
  const promised = new Promise<TtlDB<any>>((r) => (resolve = r))
  const { element } = await render(createElement(Sessions, { db: promised }))
  expect(shown(element)).toBe('loading')
  resolve(db)
  await until(() => expect(shown(element)).toBe('a'))
})

test("StrictMode's double mount leaves one subscription, and unmounting leaves no subscription, lock or timer", async () => {
  const setup = await sessionsDB()
  const { db, subscriptions, timers } = setup
  await db.put('sessions', { id: 'a', user: 'u1', ttl: 60 })
  const { element, root } = await render(createElement(StrictMode, null, createElement(Sessions, { db })))
  await until(() => expect(shown(element)).toBe('a'))
  // StrictMode subscribed, unsubscribed and subscribed again: one stays.
  expect(subscriptions.made).toBe(2)
  expect(subscriptions.open).toBe(1)
  await until(() => expect(timers.pending).toHaveLength(1))
  expect(await setup.holdsLiveLock()).toBe(true)
  await inAct(() => root.unmount())
  roots.length = 0
  expect(subscriptions.open).toBe(0)
  expect(timers.pending).toEqual([])
  await until(async () => expect(await setup.holdsLiveLock()).toBe(false))
})

test('useStale: an item leaves the live list and joins the stale one at its expiry instant, with its expiredAt', async () => {
  const setup = await sessionsDB(86_400)
  const { db, clock } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 60 }, { id: 'b', user: 'u1' }])
  const expiry = clock.now + 60_000
  const seen: { key: string; expiredAt: number; id: string }[][] = []
  function Both() {
    const stale = useStale(db, 'sessions', { query: IDBKeyRange.lowerBound('a') })
    if (stale) seen.push(stale.map((entry) => ({ key: entry.key as string, expiredAt: entry.expiredAt, id: (entry.value as Session).id })))
    return createElement('div', null, list(useLive(db, 'sessions') as Session[] | undefined), createElement('ol', null, stale?.map((entry) => createElement('b', { key: String(entry.key) }, String(entry.key)))))
  }
  const { element } = await render(createElement(Both))
  const staleShown = () => [...element.querySelectorAll('ol b')].map((b) => b.textContent).join(',')
  await until(() => expect(shown(element.firstElementChild!)).toBe('a,b'))
  await until(() => expect(seen.at(-1)).toEqual([]))
  // Each list's live query set its expiry timer for that instant: firing them moves both lists, with no write.
  await until(() => expect(setup.timers.pending.map((timer) => timer.delay)).toEqual([60_000, 60_000]))
  clock.set(expiry)
  const fired = performance.now()
  setup.timers.fire()
  await until(() => expect([shown(element.firstElementChild!), staleShown()]).toEqual(['b', 'a']))
  expect(performance.now() - fired).toBeLessThan(READING_MS)
  expect(seen.at(-1)).toEqual([{ key: 'a', expiredAt: expiry, id: 'a' }])
  // A write that brings the key back live takes it off the stale list.
  await db.put('sessions', { id: 'a', user: 'u1' })
  await until(() => expect(shown(element.firstElementChild!)).toBe('a,b'))
  await until(() => expect(staleShown()).toBe(''))
})

test('useLiveItem: one item by key, null once it expired', async () => {
  const setup = await sessionsDB()
  const { db, clock } = setup
  await db.putAll('sessions', [{ id: 'a', user: 'u1', ttl: 30 }, { id: 'b', user: 'u1' }])
  function One() {
    const item = useLiveItem(db, 'sessions', 'a') as Session | null | undefined
    return item === undefined ? createElement('p', null, 'loading') : createElement('ul', null, item && createElement('li', null, item.id))
  }
  const { element } = await render(createElement(One))
  await until(() => expect(shown(element)).toBe('a'))
  await expireAt(setup, clock.now + 30_000, element, '')
})

test('a refused query is thrown at render, to the error boundary', async () => {
  const { db } = await sessionsDB()
  const { Component } = await import('react')
  class Boundary extends Component<{ children: ReactNode }, { error?: Error }> {
    override state: { error?: Error } = {}
    static getDerivedStateFromError(error: Error) {
      return { error }
    }
    override render() {
      return this.state.error ? createElement('output', null, (this.state.error as Error & { code?: string }).code) : this.props.children
    }
  }
  function Bad() {
    return list(useLive(db, 'nope') as Session[] | undefined)
  }
  const { element } = await render(createElement(Boundary, null, createElement(Bad)))
  await until(() => expect(element.querySelector('output')?.textContent).toBe('UNKNOWN_STORE'))
})
