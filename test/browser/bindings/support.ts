/**
 * What the framework bindings' browser tests share (react.test.ts, vue.test.ts, svelte.test.ts):
 * a database of sessions by user, on a clock the test moves; the rendered lists, as each
 * committed state of the DOM; and what a binding holds while it runs, told from outside: the
 * subscriptions to the handle's live queries, the realm's Web Lock for live queries on the
 * database, and the pending expiry timers.
 */
import { afterEach, vi } from 'vitest'
import type { TtlDB } from '../../../src/index.js'
import { lockNames } from '../../../src/platform/lock.js'
import { freshDB, manualClock, uniqueName } from '../../helpers.js'
import { captureExpiryTimers } from '../../live/timers.js'
import { openPage } from '../pages.js'

export const until = (check: () => Promise<void> | void, timeout = 15_000) => vi.waitFor(check, { timeout, interval: 5 })

export const stores = { sessions: { keyPath: 'id', defaultTtl: 3600, indexes: { byUser: { keyPath: 'user' } } } }

export interface Session {
  id: string
  user: string
  ttl?: number
}

const cleanups: (() => void)[] = []
afterEach(() => cleanups.splice(0).reverse().forEach((cleanup) => cleanup()))

/**
 * A fresh database of sessions on a manual clock, its live queries' expiry timers taken (moved by
 * the test), and the subscriptions to its live queries counted. With `keepExpired`, the sessions
 * store keeps an expired item that many seconds (for the stale bindings).
 */
export async function sessionsDB(keepExpired?: number) {
  const clock = manualClock()
  const name = uniqueName('bindings')
  const kept = keepExpired === undefined ? stores : { sessions: { ...stores.sessions, keepExpired } }
  const db = (await freshDB({ clock, stores: kept }, name)) as TtlDB<any>
  const timers = captureExpiryTimers()
  cleanups.push(() => timers.restore())
  const subscriptions = countSubscriptions(db)
  return {
    db,
    name,
    clock,
    timers,
    subscriptions,
    /** Whether this page holds the Web Lock that says it has live queries on the database. */
    holdsLiveLock: async () => (await lockNames(`idb-ttl:live:${encodeURIComponent(name)}:`)).length > 0,
    /** A handle of the database in another page (another tab of the app, its own copy of the library). */
    async otherTab() {
      const page = await openPage()
      const other = await page.lib.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores: kept })
      cleanups.push(() => other.close())
      return other as TtlDB<any>
    },
  }
}

/** Counts the subscriptions made to `db`'s live queries, and those not ended yet. */
function countSubscriptions(db: TtlDB<any>) {
  const counts = { made: 0, open: 0 }
  const live = db.live.bind(db)
  db.live = ((store: string, options?: object) => {
    const query = live(store, options)
    const subscribe = query.subscribe
    query.subscribe = ((listener: Parameters<typeof subscribe>[0]) => {
      counts.made++
      counts.open++
      const off = subscribe(listener)
      let ended = false
      const end = () => {
        if (!ended) counts.open--
        ended = true
        off()
      }
      return Object.assign(end, { unsubscribe: end })
    }) as typeof subscribe
    return query
  }) as typeof db.live
  return counts
}

/** A list as the test's components render it: "loading" before the first result, else the ids. */
export function shown(container: Element): string {
  if (container.querySelector('p')) return 'loading'
  return [...container.querySelectorAll('li')].map((li) => li.textContent).join(',')
}

/** Every state of `container`'s list the DOM went through from now on (what a user could see). */
export function recordDom(container: Element): string[] {
  const states = [shown(container)]
  const observer = new MutationObserver(() => {
    const now = shown(container)
    if (now !== states.at(-1)) states.push(now)
  })
  observer.observe(container, { childList: true, subtree: true, characterData: true })
  cleanups.push(() => observer.disconnect())
  return states
}

/** A container for a component, removed after the test. */
export function container(): HTMLElement {
  const element = document.createElement('div')
  document.body.append(element)
  cleanups.push(() => element.remove())
  return element
}

/**
 * How late, in wall time, a list may change after its expiry timer fired. The timer itself is
 * exact (`expireAt` checks its delay against the clock, and it is the only one pending), so the
 * 100 ms of SPEC §15 is met by construction; what follows is one reading of the store and one
 * render, which a loaded machine slows well past 100 ms (338 ms seen at a load average of 11). The
 * bound only catches a list that waited for something else: a later timer, a poll, another write.
 */
export const READING_MS = 1000

/**
 * Moves the clock to `instant`, fires the expiry timer the live query set for it, and resolves to
 * the milliseconds from then until the list shows `expected`. The timer is checked first: it is
 * the only pending one, and due at `instant` by the clock.
 */
export async function expireAt(
  setup: Awaited<ReturnType<typeof sessionsDB>>,
  instant: number,
  element: Element,
  expected: string,
): Promise<number> {
  const { clock, timers } = setup
  await until(() => {
    if (timers.pending.length !== 1 || timers.pending[0].delay !== instant - clock.now) throw new Error(`timers pending: ${JSON.stringify(timers.pending.map((t) => t.delay))}`)
  })
  clock.set(instant)
  const fired = performance.now()
  timers.fire()
  await until(() => {
    if (shown(element) !== expected) throw new Error(`shown: ${shown(element)}`)
  })
  return performance.now() - fired
}
