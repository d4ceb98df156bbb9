// Issue #44: the write observer of mirrored stores (src/transaction/mirror-queue.ts: the outbox,
// Cosmos DB's ids) loads with an open that declares a store `mirror: true`, before the open
// resolves, so that the handle queues every write from its first, and refuses an id Cosmos DB
// cannot store, as before. An open with no mirrored store never loads it. A chunk that cannot be
// loaded fails that open (its database not created), and the next open loads it again.
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { inlineBackground } from '../../src/background/inline.js'
import type { TtlDB } from '../../src/index.js'
import type { OpenTtlDBOptions } from '../../src/rules/types.js'
import { outbox } from '../cosmos/support.js'
import { uniqueName } from '../helpers.js'
import { chunks, SOON } from './loaders.js'

const mirrored: Partial<OpenTtlDBOptions> = { stores: { s: { keyPath: 'id', defaultTtl: 60, mirror: true } } }

/** Puts item `a`, and expects its put queued in the outbox: the handle's writes are mirrored. */
async function queuesAPut(db: TtlDB): Promise<void> {
  await db.put('s', { id: 'a' })
  expect(await outbox(db)).toEqual([expect.objectContaining({ store: 's', key: 'a', op: 'put' })])
}

test('an open with no mirrored store loads no write observer; one with a mirrored store waits for it, and queues its first write', async () => {
  const { open, mirror } = chunks()
  const plain = await open(uniqueName(), {}, inlineBackground)
  await plain.put('s', { id: 'a' })
  plain.close()
  expect(mirror.loads).toBe(0)
  mirror.hold()
  const name = uniqueName()
  let opened = false
  const opening = open(name, mirrored, inlineBackground).then((db) => ((opened = true), db))
  await expect.poll(() => mirror.loads, SOON).toBe(1)
  // Held: the open waits for it (a handle without it would write unqueued).
  await Promise.resolve()
  expect(opened).toBe(false)
  mirror.release()
  const db = await opening
  await queuesAPut(db)
  await expect(db.put('s', { id: 'a/b' })).rejects.toMatchObject({
    code: 'INVALID_VALUE',
    message: 'store "s": id "a/b" contains / \\ ? or #: Cosmos DB cannot store it (the store is mirrored)',
  })
  expect(await db.get('s', 'a/b')).toBeUndefined()
  expect(mirror.loads).toBe(1)
  db.close()
  await deleteDB(name)
})

test('an open whose write observer cannot be loaded rejects with the import error, creating nothing; the next open loads it', async () => {
  const { open, mirror } = chunks()
  const name = uniqueName()
  const offline = new TypeError('Failed to fetch dynamically imported module')
  mirror.failNext(offline)
  await expect(open(name, mirrored, inlineBackground)).rejects.toBe(offline)
  expect((await indexedDB.databases()).map((db) => db.name)).not.toContain(name)
  const db = await open(name, mirrored, inlineBackground)
  await queuesAPut(db)
  expect(mirror.loads).toBe(2)
  db.close()
  await deleteDB(name)
})

test('a mirrored store the open refuses is refused in its words whether or not the write observer loads', async () => {
  const { open, mirror } = chunks()
  const name = uniqueName()
  mirror.failNext(new TypeError('Failed to fetch dynamically imported module'))
  // keyPath 'key': a mirrored store's key is Cosmos DB's id (refused before the observer's load is awaited).
  const refusal = { stores: { s: { keyPath: 'key', defaultTtl: 60, mirror: true } } }
  await expect(open(name, refusal, inlineBackground)).rejects.toMatchObject({ code: 'INVALID_OPTION' })
  await expect(open(name, refusal, inlineBackground)).rejects.toMatchObject({ code: 'INVALID_OPTION' })
  expect((await indexedDB.databases()).map((db) => db.name)).not.toContain(name)
})
