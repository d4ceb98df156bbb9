/**
 * Write observers (the Cosmos DB mirror's outbox, SPEC §12): every write of an observed store, by
 * the handle's calls or in a transaction, is recorded in its own transaction, so the record
 * exists exactly when the write committed.
 */
import { expect, test } from 'vitest'
import { observeWrites, transactionOf, type WriteObserver } from '../../src/handle/internal.js'
import type { TtlDB } from '../../src/index.js'
import { freshDB, manualClock } from '../helpers.js'
import { expectDomError, rawAll, rawKeys, T0 } from '../semantics/support.js'

/** An observer that records each change in the `log` store, in the change's transaction. */
function logger(): WriteObserver {
  const log = (tx: IDBTransaction, entry: object) => void tx.objectStore('log').add(entry)
  return {
    stores: ['log'],
    put: (tx, key, item) => log(tx, { op: 'put', key, id: item.id, ts: item._ts }),
    delete: (tx, key) => log(tx, { op: 'delete', key }),
  }
}

async function open() {
  const clock = manualClock(T0)
  const db: TtlDB<any> = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 60 }, t: { keyPath: 'id' }, log: { autoIncrement: true } } })
  const stop = observeWrites(db, 's', logger())
  return { db, stop }
}

const ops = async (db: TtlDB<any>) => (await rawAll(db, 'log')).map((e) => `${e.op} ${String(e.key)}`)

test('every kind of write of the store is recorded in its transaction; other stores are not', async () => {
  const { db } = await open()
  await db.put('s', { id: 'a' })
  await db.putAll('s', [{ id: 'b' }, { id: 'c' }])
  await db.add('s', { id: 'd' })
  await db.update('s', 'a', { n: 1 })
  await db.touch('s', 'b')
  await db.delete('s', IDBKeyRange.bound('c', 'd'))
  await db.put('t', { id: 'x' })
  await db.transaction(['s', 't'], 'readwrite', async (tx) => {
    await tx.put('s', { id: 'e' })
    await tx.put('t', { id: 'y' })
  })
  await db.clear('s')
  expect(await ops(db)).toEqual(['put a', 'put b', 'put c', 'put d', 'put a', 'put b', 'delete c', 'delete d', 'put e', 'delete a', 'delete b', 'delete e'])
  expect((await rawAll(db, 'log'))[0]).toMatchObject({ id: 'a', ts: T0 / 1000 })
})

test('a write that fails records nothing, and a failed record undoes the write', async () => {
  const { db } = await open()
  await db.put('s', { id: 'a' })
  await expectDomError(db.add('s', { id: 'a' }), 'ConstraintError')
  expect(await ops(db)).toEqual(['put a'])
  observeWrites(db, 's', { stores: ['log'], put: (tx) => void tx.objectStore('log').add({ op: 'x' }, 'same'), delete: () => {} })
  observeWrites(db, 's', { stores: ['log'], put: (tx) => void tx.objectStore('log').add({ op: 'x' }, 'same'), delete: () => {} })
  await expectDomError(db.put('s', { id: 'b' }), 'ConstraintError')
  expect(await rawKeys(db, 's')).toEqual(['a'])
})

test('an unobserved transaction (the observer’s own writes) is not recorded; stopping ends the records', async () => {
  const { db, stop } = await open()
  await transactionOf(db, ['s'], 'readwrite', (tx) => tx.put('s', { id: 'pulled' }), { observed: false })
  await db.put('s', { id: 'local' })
  stop()
  await db.put('s', { id: 'after' })
  expect(await ops(db)).toEqual(['put local'])
  expect(await rawKeys(db, 's')).toEqual(['after', 'local', 'pulled'])
})

test('deleting an expired item is a no-op to observers (SPEC §2): a delete, a range delete and a clear report live keys only', async () => {
  const clock = manualClock(T0)
  const db: TtlDB<any> = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 60 }, log: { autoIncrement: true } } })
  observeWrites(db, 's', logger())
  await db.putAll('s', [{ id: 'dead', ttl: 1 }, { id: 'dead2', ttl: 1 }, { id: 'live' }, { id: 'live2' }])
  clock.set(T0 + 2_000)
  await db.delete('s', 'dead')
  await db.delete('s', IDBKeyRange.bound('dead2', 'live'))
  await db.clear('s')
  expect((await ops(db)).filter((op) => op.startsWith('delete'))).toEqual(['delete live', 'delete live2'])
  // The dead copies went from the disk all the same.
  expect(await rawKeys(db, 's')).toEqual([])
})
