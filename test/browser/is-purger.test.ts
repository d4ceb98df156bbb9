// db.isPurger's timing as documented, with the browser's own Web Locks (the Node stub grants
// the lock synchronously, so this runs in browsers only).
import { expect, test, vi } from 'vitest'
import { freshDB } from '../helpers.js'

const stores = { s: { keyPath: 'id', defaultTtl: 60 } }

test('isPurger is false when openTtlDB resolves, true a moment later, and false after close()', async () => {
  const db = await freshDB({ purge: { mode: 'inline' }, stores })
  expect(db.isPurger).toBe(false)
  await vi.waitFor(() => expect(db.isPurger).toBe(true), { timeout: 10_000, interval: 5 })
  db.close()
  expect(db.isPurger).toBe(false)
})
