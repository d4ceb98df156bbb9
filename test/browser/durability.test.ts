// The durability option reaches each engine's write transactions, and a committed write survives
// closing and reopening the database.
import { expect, test, vi } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'

test.for(['strict', 'relaxed'] as const)('durability %s is used by write transactions', async (durability) => {
  const seen: (string | undefined)[] = []
  const original = IDBDatabase.prototype.transaction
  const spy = vi.spyOn(IDBDatabase.prototype, 'transaction').mockImplementation(function (this: IDBDatabase, ...args) {
    const tx = original.apply(this, args as Parameters<typeof original>)
    if (tx.mode === 'readwrite') seen.push(tx.durability)
    return tx
  })
  try {
    const name = uniqueName()
    const clock = manualClock()
    const db = await freshDB({ clock, durability, stores: { s: { keyPath: 'id', defaultTtl: 60 } } }, name)
    await db.put('s', { id: 1 })
    await db.setDefaultTtl('s', 120)
    expect(seen.length).toBeGreaterThanOrEqual(2)
    expect(new Set(seen)).toEqual(new Set([durability]))
    db.close()
    const again = await openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
    expect(await again.get('s', 1)).toMatchObject({ id: 1 })
    expect(await again.getDefaultTtl('s')).toBe(120)
    again.close()
  } finally {
    spy.mockRestore()
  }
})
