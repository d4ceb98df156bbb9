/**
 * SPEC §11: a transaction over some stores never delays reads or writes of stores it does not
 * name. The transaction is held open by a chain of its own requests until the calls on another
 * store have resolved; a call that waits for the transaction would wait for ever, so the chain
 * ends after a bound of time ({@link holdOpenUntil}, far more than the calls take) and the test
 * fails. Writes beside a readwrite transaction are asserted only where the engine runs two
 * readwrite transactions side by side (not Chromium, not Firefox: {@link oneWriterAtATime}).
 */
import { expect, test } from 'vitest'
import type { TtlDB } from '../../src/index.js'
import { oneWriterAtATime } from '../engines/quirks.js'
import { freshDB, manualClock } from '../helpers.js'
import { T0 } from '../semantics/support.js'
import { holdOpenUntil } from '../waits.js'

const stores = {
  held: { keyPath: 'id', defaultTtl: 60 },
  other: { keyPath: 'id', defaultTtl: 60, indexes: { byUser: { keyPath: 'user' } } },
}

type Calls = (db: TtlDB<any>) => Promise<unknown>[]

const reads: Calls = (db) => [
  db.get('other', 1),
  db.getAll('other'),
  db.count('other'),
  db.getAllFromIndex('other', 'byUser', 'u1'),
  db.transaction('other', 'readonly', (tx) => tx.getAllKeys('other')),
]

const writes: Calls = (db) => [
  db.put('other', { id: 3, user: 'u3' }),
  db.update('other', 1, { seen: true }),
  db.delete('other', 2),
  db.setDefaultTtl('other', 120),
  db.transaction('other', 'readwrite', (tx) => tx.put('other', { id: 4, user: 'u4' })),
]

/**
 * Opens a `mode` transaction over `held`, makes `calls` on `other` once it holds its store, and
 * keeps it open until they resolved. Resolves to whether they did while it was open, and to what
 * they resolved to.
 */
async function beside(mode: IDBTransactionMode, calls: Calls) {
  const db: TtlDB<any> = await freshDB({ clock: manualClock(T0), stores })
  await db.put('held', { id: 'x' })
  await db.putAll('other', [{ id: 1, user: 'u1' }, { id: 2, user: 'u2' }])
  let resolved = false
  const outcome = await db.transaction('held', mode as 'readwrite', async (tx) => {
    const made = Promise.all(calls(db)).finally(() => (resolved = true))
    const whileOpen = await holdOpenUntil(() => tx.get('held', 'x'), () => resolved)
    return { whileOpen, results: await made }
  })
  return { db, ...outcome }
}

test('reads of another store resolve while a readwrite transaction is open', async () => {
  const { whileOpen, results } = await beside('readwrite', reads)
  expect(whileOpen).toBe(true)
  expect(results).toEqual([
    expect.objectContaining({ id: 1 }),
    [expect.objectContaining({ id: 1 }), expect.objectContaining({ id: 2 })],
    2,
    [expect.objectContaining({ id: 1 })],
    [1, 2],
  ])
})

test.skipIf(await oneWriterAtATime())('writes of another store resolve while a readwrite transaction is open (where the engine runs two side by side)', async () => {
  const { db, whileOpen } = await beside('readwrite', writes)
  expect(whileOpen).toBe(true)
  expect(await db.getAll('other')).toEqual([
    expect.objectContaining({ id: 1, seen: true }),
    expect.objectContaining({ id: 3 }),
    expect.objectContaining({ id: 4 }),
  ])
})

test('reads and writes of another store resolve while a readonly transaction is open', async () => {
  const { db, whileOpen } = await beside('readonly', (db) => [...reads(db), ...writes(db)])
  expect(whileOpen).toBe(true)
  expect(await db.getAllKeys('other')).toEqual([1, 3, 4])
})

test("reads of another store resolve while an update of the transaction's own store waits for it", async () => {
  const db: TtlDB<any> = await freshDB({ clock: manualClock(T0), stores })
  await db.put('held', { id: 'x' })
  await db.putAll('other', [{ id: 1, user: 'u1' }, { id: 2, user: 'u2' }])
  let resolved = false
  const outcome = await db.transaction('held', 'readwrite', async (tx) => {
    // The update waits for the transaction: it must not make reads of other stores wait too.
    const queued = db.update('held', 'x', { seen: true })
    for (let i = 0; i < 3; i++) await tx.get('held', 'x')
    const made = Promise.all(reads(db)).finally(() => (resolved = true))
    const whileOpen = await holdOpenUntil(() => tx.get('held', 'x'), () => resolved)
    return { whileOpen, queued, made }
  })
  expect(outcome.whileOpen).toBe(true)
  expect(await outcome.queued).toMatchObject({ id: 'x', seen: true })
  expect(await outcome.made).toHaveLength(5)
})
