// Issue #44: `db.transaction` runs what `handle/transact.ts` holds (with `transaction/run.ts`), which the
// page entries load with `import()` at a handle's first transaction (handle/routes.ts); its refusals of
// stores declared with `evictOnQuota` need none of it. Transactions called while it loads
// run in the order called, and a chunk that cannot be loaded fails that call only. (A handle's own
// call made after a transaction in the same tick may land first, with the chunk loaded or imported
// as well, as before the split: SPEC §11 orders the calls inside one transaction.)
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { uniqueName } from '../helpers.js'
import { chunks, SOON } from './loaders.js'

test('two transactions called in one tick while the chunk loads run in order, the second seeing the first one\'s write', async () => {
  const { open, transactions } = chunks()
  const name = uniqueName()
  const db = await open(name, {})
  transactions.hold()
  const first = db.transaction(['s'], 'readwrite', (t) => t.put('s', { id: 1, n: 1 }))
  const second = db.transaction(['s'], 'readwrite', async (t) => {
    const seen = (await t.get('s', 1)) as { n: number } | undefined
    await t.put('s', { id: 1, n: (seen?.n ?? 0) + 1 })
  })
  transactions.release()
  await Promise.all([first, second])
  expect(await db.get('s', 1)).toMatchObject({ n: 2 })
  expect(transactions.loads).toBe(1)
  db.close()
  await deleteDB(name)
})

test('the chunk is asked for once per handle: later transactions run without another import() (which waits for the module loader even once the module is loaded)', async () => {
  const { open, transactions } = chunks()
  const name = uniqueName()
  const db = await open(name, {})
  for (let i = 0; i < 3; i++) await db.transaction(['s'], 'readwrite', (t) => t.put('s', { id: i }))
  expect(await db.getAllKeys('s')).toEqual([0, 1, 2])
  expect(transactions.loads).toBe(1)
  db.close()
  await deleteDB(name)
})

test('a transaction whose chunk cannot be loaded rejects with why, writes nothing, and the next one loads it again', async () => {
  const { open, transactions } = chunks()
  const name = uniqueName()
  const db = await open(name, {})
  const offline = new TypeError('Failed to fetch dynamically imported module')
  transactions.failNext(offline)
  await expect(db.transaction(['s'], 'readwrite', (t) => t.put('s', { id: 1 }))).rejects.toBe(offline)
  await db.put('s', { id: 2 })
  expect(await db.getAllKeys('s')).toEqual([2])
  await db.transaction(['s'], 'readwrite', (t) => t.put('s', { id: 3 }))
  expect(await db.getAllKeys('s')).toEqual([2, 3])
  db.close()
  await deleteDB(name)
})

test('a transaction left waiting for its chunk by close() rejects with TtlError CLOSED, its callback never run', async () => {
  const { open, transactions } = chunks()
  const name = uniqueName()
  const db = await open(name, {})
  transactions.hold()
  let ran = false
  const tx = db.transaction(['s'], 'readwrite', () => void (ran = true))
  await expect.poll(() => transactions.loads, SOON).toBe(1)
  db.close()
  transactions.release()
  await expect(tx).rejects.toMatchObject({ code: 'CLOSED' })
  expect(ran).toBe(false)
  await deleteDB(name)
})

test('a transaction over a store declared with evictOnQuota is refused with TtlError UNSUPPORTED before any chunk loads', async () => {
  const { open, transactions } = chunks()
  const name = uniqueName()
  const db = await open(name, { stores: { s: { keyPath: 'id', defaultTtl: 60 }, kept: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true } } })
  await expect(db.transaction(['s', 'kept'], 'readwrite', () => {})).rejects.toMatchObject({
    code: 'UNSUPPORTED',
    message: expect.stringContaining('store "kept" keeps its values in databases of their own (evictOnQuota)'),
  })
  expect(transactions.loads).toBe(0)
  db.close()
  await deleteDB(name)
})
