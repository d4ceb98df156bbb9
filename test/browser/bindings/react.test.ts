// idb-ttl/react in a real browser, rendered by react-dom/client: the scenarios of every binding
// (scenarios.ts), the unmount one also under StrictMode's double mount; an inline options literal
// that does not resubscribe; useStale, whose stale list an item joins as it leaves the live one;
// useLiveItem; and a refused query thrown to the error boundary.
import { act, createElement, StrictMode, type ReactNode } from 'react'
import { createRoot, type Root } from 'react-dom/client'
import { afterEach, expect, test } from 'vitest'
import type { TtlDB } from '../../../src/index.js'
import { useLive, useLiveItem, useStale } from '../../../src/react.js'
import { testScenarios, type Binding } from './scenarios.js'
import { container, expireAt, sessionsDB, shown, until, type Session, READING_MS } from './support.js'

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

/** The sessions list in React, wrapped by `wrap` (StrictMode). */
function reactBinding(wrap: (node: ReactNode) => ReactNode = (node) => node): Binding {
  return {
    async render(props) {
      const { element, root } = await render(wrap(createElement(Sessions, props)))
      return {
        element,
        update: (next) => inAct(() => root.render(wrap(createElement(Sessions, next)))),
        async unmount() {
          roots.splice(roots.indexOf(root), 1)
          await inAct(() => root.unmount())
        },
      }
    },
  }
}

testScenarios(reactBinding())
// StrictMode subscribes, unsubscribes and subscribes again.
testScenarios({ ...reactBinding((node) => createElement(StrictMode, null, node)), subscriptionsOnMount: 2 }, ['unmounting leaves no subscription, lock or timer'], "StrictMode's double mount leaves one subscription; ")

test('an inline options literal equal to the last one keeps the subscription', async () => {
  const { db, subscriptions } = await sessionsDB()
  await db.put('sessions', { id: 'a', user: 'u1' })
  const { element, root } = await render(createElement(Sessions, { db, user: 'u1' }))
  await until(() => expect(shown(element)).toBe('a'))
  for (let i = 0; i < 3; i++) await inAct(() => root.render(createElement(Sessions, { db, user: 'u1' })))
  expect(shown(element)).toBe('a')
  expect(subscriptions).toEqual({ made: 1, open: 1 })
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
