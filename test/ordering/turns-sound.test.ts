// The order of calls on a store (`handle/turns.ts`) in the cases where a turn could be held for
// ever or never let go: calls of a transaction's callback on its own store, awaited inside it;
// transactions over two stores taking them in opposite orders around a call on one; a callback
// that throws; calls on a store not declared. Every call ends, and the handle keeps no turn.
import { expect, test } from 'vitest'
import { freshDB } from '../helpers.js'

const stores = { a: { keyPath: 'id', defaultTtl: 60 }, b: { keyPath: 'id', defaultTtl: 60 } } as const

test('nested, crossed, failing and misdirected calls all end, and leave no turn held', async () => {
  const db = await freshDB({ stores })
  const nested = db.transaction('a', 'readwrite', async (tx) => {
    tx.put('a', { id: 1 })
    await db.put('a', { id: 2 })
    return db.get('a', 2)
  })
  expect(await nested).toMatchObject({ id: 2 })
  const ab = db.transaction(['a', 'b'], 'readwrite', async (tx) => void (await Promise.all([tx.put('a', { id: 'ab' }), tx.put('b', { id: 'ab' })])))
  const put = db.put('b', { id: 'put' })
  const ba = db.transaction(['b', 'a'], 'readwrite', async (tx) => void (await Promise.all([tx.put('b', { id: 'ba' }), tx.put('a', { id: 'ba' })])))
  await Promise.all([ab, put, ba])
  await expect(db.transaction('a', 'readwrite', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
  await expect((db as any).get('nope', 1)).rejects.toMatchObject({ code: 'UNKNOWN_STORE' })
  await expect((db as any).put('nope', { id: 1 })).rejects.toMatchObject({ code: 'UNKNOWN_STORE' })
  expect(await db.getAllKeys('a')).toEqual([1, 2, 'ab', 'ba'])
  expect(await db.getAllKeys('b')).toEqual(['ab', 'ba', 'put'])
  expect((db as unknown as { route: { turns: Map<string, unknown> } }).route.turns.size).toBe(0)
}, 5000)
