/**
 * Issue #43, 8: a round costs what changed, not what exists. Counted at a proxy in front of the
 * in-process server: the requests a pull round makes, and the documents their answers hold. Node
 * only: time passes by moving `Date.now`, which the server stamps `_ts` and its `date` from.
 */
import type { Container } from '@azure/cosmos'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { syncCosmos, type SyncOptions } from '../../src/cosmos/index.js'
import { realTime } from './clock.js'
import { containerVia, newContainer } from './containers.js'
import { serverBehindProxy } from './harness.js'
import { openMirror } from './support.js'

beforeAll(() => realTime.install())
afterAll(() => realTime.restore())
const servers = serverBehindProxy()

/** `count` items of partition t1 written (within a second or so) `agoMs` ago, by bulk requests. */
async function importItems(container: Container, count: number, agoMs: number): Promise<void> {
  realTime.pass(-agoMs)
  try {
    for (let i = 0; i < count; i += 100) {
      const operations = Array.from({ length: Math.min(100, count - i) }, (_, j) => ({ operationType: 'Create' as const, partitionKey: 't1', resourceBody: { id: `i${i + j}`, tenant: 't1', n: i + j } }))
      await container.items.executeBulkOperations(operations)
    }
  } finally {
    realTime.pass(agoMs)
  }
}

/** A mirror of t1 through the proxy, pulled once (every item in). */
async function mirrored(defaultTtl: number, count: number, options: SyncOptions = {}) {
  const { container, id } = await newContainer(servers.port, defaultTtl)
  await importItems(container, count, 10_000)
  const db = await openMirror(() => Date.now())
  const sync = syncCosmos(db, 'items', containerVia(servers.proxy.port, id), { partitionKey: 't1', ...options })
  expect(await sync.pull()).toBe(count)
  return { container, db, sync }
}

/** One pull round's queries (a query plan's request aside) and the documents their answers held. */
async function costOf(round: () => Promise<unknown>): Promise<{ queries: number; documents: number }> {
  await servers.proxy.reset()
  await round()
  const queries = (await servers.proxy.log()).passed.filter((request) => request.method === 'POST' && request.url.endsWith('/docs') && !request.queryPlan)
  return { queries: queries.length, documents: queries.reduce((sum, query) => sum + (query.items ?? 0), 0) }
}

describe('what a round costs', () => {
  test('an idle round after a 1,000-item import in one second: one query, an empty answer (every round, not only after the next write)', async () => {
    const { db, sync } = await mirrored(3600, 1000)
    realTime.pass(30_000)
    expect(await costOf(() => sync.pull())).toEqual({ queries: 1, documents: 0 })
    realTime.pass(30_000)
    expect(await costOf(() => sync.pull())).toEqual({ queries: 1, documents: 0 })
    db.close()
  }, 30_000)

  test('where deletes are plain, an idle round counts the scope (one number) rather than listing its ids; a delete is still found', async () => {
    const { container, db, sync } = await mirrored(3600, 300, { softDelete: false })
    realTime.pass(30_000)
    expect(await costOf(() => sync.pull())).toEqual({ queries: 2, documents: 1 })
    await container.item('i7', 't1').delete()
    realTime.pass(30_000)
    await sync.pull()
    expect(await db.get('items', 'i7')).toBeUndefined()
    expect(await db.count('items')).toBe(299)
    // In step again: counted, not listed.
    realTime.pass(30_000)
    expect(await costOf(() => sync.pull())).toEqual({ queries: 2, documents: 1 })
    db.close()
  }, 30_000)

  test('a tab in the background (a round a minute and more apart, past the default tombstone life) counts rather than lists its ids', async () => {
    const { db, sync } = await mirrored(3600, 300)
    realTime.pass(90_000)
    expect(await costOf(() => sync.pull())).toEqual({ queries: 2, documents: 1 })
    db.close()
  }, 30_000)
})
