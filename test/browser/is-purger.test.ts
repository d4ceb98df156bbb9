// db.isPurger's timing as documented, and the election behind it, with the browser's own Web Locks
// (the Node stub grants the lock synchronously, so this runs in browsers only).
import { afterEach, expect, test, vi } from 'vitest'
import { electLeader } from '../../src/background/leader.js'
import { freshDB, uniqueName } from '../helpers.js'

const stores = { s: { keyPath: 'id', defaultTtl: 60 } }
const windows: (Window | null)[] = []
afterEach(() => windows.splice(0).forEach((opened) => opened?.close()))

test('isPurger is false when openTtlDB resolves, true a moment later, and false after close()', async () => {
  const db = await freshDB({ purge: { mode: 'inline' }, stores })
  expect(db.isPurger).toBe(false)
  await vi.waitFor(() => expect(db.isPurger).toBe(true), { timeout: 10_000, interval: 5 })
  db.close()
  expect(db.isPurger).toBe(false)
})

test('an election whose lock is granted while the page is inside window.open still elects', async () => {
  // Chromium does not run the callback of a lock granted during window.open: the request
  // rejects ("The provided callback is no longer runnable") and the lock passes on. A lock asked
  // for just before the call is granted during it.
  const leading = [false, false, false, false, false]
  const elections = leading.map((_, i) => {
    const election = electLeader(uniqueName('elect-open'), (now) => (leading[i] = now))
    windows.push(window.open('about:blank', '_blank'))
    return election
  })
  await vi.waitFor(() => expect(leading).toEqual([true, true, true, true, true]), { timeout: 10_000, interval: 5 })
  elections.forEach((election) => election.release())
})
