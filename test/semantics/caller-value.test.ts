/**
 * A write copies the caller's value once and stamps the copy: the caller's object is left as it
 * was given, whichever call wrote it (no `_ts`, expiry mark, write order or writer added, no field
 * changed), and the stored item is the value as given at the call, stamped.
 */
import { describe, expect, test } from 'vitest'
import type { TtlDB } from '../../src/index.js'
import { freshDB, manualClock } from '../helpers.js'
import { rawGet, SECOND, T0 } from './support.js'

const stores = {
  items: { keyPath: 'id', defaultTtl: 60 },
  kept: { keyPath: 'id', defaultTtl: 60, keepTs: true },
  unique: { keyPath: 'id', defaultTtl: 60, indexes: { byEmail: { keyPath: 'email', unique: true } } },
}

async function open() {
  const clock = manualClock(T0)
  const db: TtlDB<any> = await freshDB({ clock, stores })
  return { db, clock }
}

/** `value` and a deep copy of it as given, to compare after the write. */
function given<T extends Record<string, unknown>>(value: T): { value: T; before: T } {
  return { value, before: structuredClone(value) }
}

/** The caller's object is as given: same fields and values, none of the library's (`_ts`, `$ttl`, `$at`, `$by`) added. */
function expectUntouched(value: Record<string, unknown>, before: Record<string, unknown>): void {
  expect(value).toStrictEqual(before)
}

describe("a write leaves the caller's value untouched and stores a stamped copy", () => {
  test('put, putAll, add and their transaction forms', async () => {
    const { db } = await open()
    const one = given({ id: 'a', n: 1, nested: { deep: [1, 2] } })
    const many = [given({ id: 'b', ttl: 30 }), given({ id: 'c', ttl: -1 })]
    const added = given({ id: 'd', n: 4 })
    await db.put('items', one.value)
    await db.putAll('items', many.map((m) => m.value))
    await db.add('items', added.value)
    const inTx = [given({ id: 'e', ttl: 10 }), given({ id: 'f' }), given({ id: 'g' }), given({ id: 'h' })]
    await db.transaction('items', 'readwrite', async (tx) => {
      await Promise.all([tx.put('items', inTx[0].value), tx.put('items', inTx[1].value)])
      await tx.putAll('items', [inTx[2].value])
      await tx.add('items', inTx[3].value)
    })
    for (const { value, before } of [one, ...many, added, ...inTx]) {
      expectUntouched(value, before)
      const stored = await rawGet(db, 'items', before.id as string)
      expect(stored).toMatchObject({ ...before, _ts: T0 / SECOND })
      expect(stored).not.toBe(value)
    }
    expect(await db.get('items', 'a')).toEqual({ id: 'a', n: 1, nested: { deep: [1, 2] }, _ts: T0 / SECOND })
  })

  test('a keepTs store keeps the given _ts without adding the rest to the caller’s value', async () => {
    const { db } = await open()
    const kept = given({ id: 'k', _ts: T0 / SECOND - 5 })
    await db.put('kept', kept.value)
    await db.transaction('kept', 'readwrite', (tx) => tx.put('kept', { ...kept.value, id: 'k2' }))
    expectUntouched(kept.value, kept.before)
    expect(await rawGet(db, 'kept', 'k')).toMatchObject({ id: 'k', _ts: T0 / SECOND - 5 })
  })

  test('a write retried after claiming a dead holder stores the value stamped once more, the caller’s left as given', async () => {
    const { db, clock } = await open()
    await db.put('unique', { id: 'old', email: 'x@example.com', ttl: 1 })
    clock.advance(2 * SECOND)
    const fresh = given({ id: 'new', email: 'x@example.com' })
    await db.put('unique', fresh.value)
    const inTx = given({ id: 'newer', email: 'y@example.com' })
    await db.put('unique', { id: 'older', email: 'y@example.com', ttl: 1 })
    clock.advance(2 * SECOND)
    await db.transaction('unique', 'readwrite', (tx) => tx.put('unique', inTx.value))
    for (const { value, before } of [fresh, inTx]) expectUntouched(value, before)
    expect(await db.getAllKeys('unique')).toEqual(['new', 'newer'])
    expect(await rawGet(db, 'unique', 'new')).toMatchObject({ ...fresh.before, _ts: T0 / SECOND + 2 })
    expect(await rawGet(db, 'unique', 'newer')).toMatchObject({ ...inTx.before, _ts: T0 / SECOND + 4 })
  })

  test('update leaves the changes object and what its function returns untouched', async () => {
    const { db } = await open()
    await db.put('items', { id: 'u', n: 1 })
    const changes = given({ n: 2 })
    await db.update('items', 'u', changes.value)
    const returned = given({ id: 'u', n: 3 })
    await db.update('items', 'u', () => returned.value)
    await db.transaction('items', 'readwrite', (tx) => tx.update('items', 'u', changes.value))
    expectUntouched(changes.value, changes.before)
    expectUntouched(returned.value, returned.before)
    expect(await db.get('items', 'u')).toEqual({ id: 'u', n: 2, _ts: T0 / SECOND })
  })
})
