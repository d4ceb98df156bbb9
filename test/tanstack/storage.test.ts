/**
 * SPEC §13 `ttlStorage`: TanStack Query's per-query persister over a TTL store. A persisted query
 * is restored by a new QueryClient (a reload), never once expired, and leaves the disk through
 * the purge, with no `persisterGc`.
 */
import { QueryClient } from '@tanstack/query-core'
import { experimental_createQueryPersister } from '@tanstack/query-persist-client-core'
import { expect, test, vi } from 'vitest'
import type { TtlDB } from '../../src/index.js'
import { ttlStorage } from '../../src/tanstack/index.js'
import { freshDB, manualClock, SOON } from '../helpers.js'
import { expectTtlError, rawKeys, SECOND, T0 } from '../semantics/support.js'

const DAY = 86_400

async function open() {
  const clock = manualClock(T0)
  const db: TtlDB<any> = await freshDB({
    clock,
    stores: {
      queries: { defaultTtl: DAY },
      keyed: { keyPath: 'id' },
      // Sliding expiry needs an in-line key path (reads find a touched item by its key).
      sliding: { keyPath: 'key', defaultTtl: 60, touchOnRead: true },
      spacious: { defaultTtl: DAY, evictOnQuota: true },
    },
  })
  return { db, clock }
}

/** The writes the persister started through a page's storage, which {@link settle} waits for. */
let writes: Promise<void>[] = []

/** A page's query client whose queries persist through `storage`; `fetched` counts the network. */
function page(ttl: ReturnType<typeof ttlStorage>) {
  const storage: typeof ttl = { ...ttl, setItem: (key, value) => { const write = ttl.setItem(key, value); writes.push(write); return write } }
  const persister = experimental_createQueryPersister({ storage, maxAge: 365 * DAY * SECOND })
  const client = new QueryClient({ defaultOptions: { queries: { persister: persister.persisterFn, staleTime: Infinity } } })
  let fetched = 0
  const todos = () => client.fetchQuery({ queryKey: ['todos'], queryFn: async () => ['from the network', ++fetched] })
  return { client, persister, todos, fetches: () => fetched }
}

/** Lets the persister's write, scheduled after the fetch, start, then waits until it committed. */
async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 0))
  const started = writes
  writes = []
  expect(started.length, 'the persister wrote').toBeGreaterThan(0)
  await Promise.all(started)
}

test('a persisted query is restored after a reload, and not once the store’s default says it expired', async () => {
  const { db, clock } = await open()
  const first = page(ttlStorage(db, 'queries'))
  expect(await first.todos()).toEqual(['from the network', 1])
  await settle()
  expect(await rawKeys(db, 'queries')).toEqual(['tanstack-query-["todos"]'])

  const reload = page(ttlStorage(db, 'queries'))
  expect(await reload.todos()).toEqual(['from the network', 1])
  expect(reload.fetches()).toBe(0)

  clock.advance(DAY * SECOND)
  const later = page(ttlStorage(db, 'queries'))
  expect(await later.todos()).toEqual(['from the network', 1])
  expect(later.fetches()).toBe(1)
  await settle()
})

test('an expired entry is never returned by getItem or entries, and the purge takes it off the disk with no persisterGc', async () => {
  const { db, clock } = await open()
  const storage = ttlStorage(db, 'queries', { ttl: 60 })
  await storage.setItem('q-a', 'A')
  clock.advance(30 * SECOND)
  await storage.setItem('q-b', 'B')
  expect(await storage.entries()).toEqual([['q-a', 'A'], ['q-b', 'B']])
  clock.advance(30 * SECOND)
  expect(await storage.getItem('q-a')).toBeNull()
  expect(await storage.getItem('q-b')).toBe('B')
  expect(await storage.entries()).toEqual([['q-b', 'B']])
  expect(await db.purgeExpired('queries')).toBe(1)
  expect(await rawKeys(db, 'queries')).toEqual(['q-b'])
  await storage.removeItem('q-b')
  expect(await storage.entries()).toEqual([])
})

test('values other than strings (a persister with its own serialize) are kept as they are', async () => {
  const { db } = await open()
  const storage = ttlStorage<{ state: { data: number[] } }>(db, 'queries')
  await storage.setItem('k', { state: { data: [1, 2] } })
  expect(await storage.getItem('k')).toEqual({ state: { data: [1, 2] } })
})

test('a store with a key path other than "key", an undeclared store, an unknown option or a bad ttl is refused at once, naming it', async () => {
  const { db } = await open()
  expect(() => ttlStorage(db, 'keyed')).toThrow(/ttlStorage\("keyed"\): the store has the key path "id"/)
  await expectTtlError(Promise.resolve().then(() => ttlStorage(db, 'keyed')), 'INVALID_OPTION')
  await expectTtlError(Promise.resolve().then(() => ttlStorage(db, 'nope')), 'UNKNOWN_STORE')
  await expectTtlError(Promise.resolve().then(() => ttlStorage(db, 'queries', { maxAge: 5 } as never)), 'INVALID_OPTION')
})

test('ttl: 0 (or any lifetime an item may not have) is TtlError INVALID_TTL at ttlStorage, not a rejection of every setItem', async () => {
  const { db } = await open()
  for (const ttl of [0, -2, 1.5, Number.NaN, 2 ** 31, '60']) {
    const made = Promise.resolve().then(() => ttlStorage(db, 'queries', { ttl: ttl as number }))
    await expectTtlError(made, 'INVALID_TTL')
    await expect(made).rejects.toThrow(/ttlStorage\("queries"\): ttl must be/)
  }
  expect(await rawKeys(db, 'queries')).toEqual([])
  await ttlStorage(db, 'queries', { ttl: -1 }).setItem('k', 'v')
  expect(await rawKeys(db, 'queries')).toEqual(['k'])
})

test("sliding expiry: over a store declared { keyPath: 'key', touchOnRead: true }, each restore restarts the entry's countdown", async () => {
  const { db, clock } = await open()
  const first = page(ttlStorage(db, 'sliding'))
  await first.todos()
  await settle()
  for (let i = 0; i < 3; i++) {
    clock.advance(50 * SECOND)
    const reload = page(ttlStorage(db, 'sliding'))
    expect(await reload.todos()).toEqual(['from the network', 1])
    expect(reload.fetches()).toBe(0)
  }
  clock.advance(60 * SECOND)
  const later = page(ttlStorage(db, 'sliding'))
  expect(await later.todos()).toEqual(['from the network', 1])
  expect(later.fetches()).toBe(1)
  // Persisted again: the entry is listed with its key.
  await vi.waitFor(async () => expect(await ttlStorage(db, 'sliding').entries()).toEqual([['tanstack-query-["todos"]', expect.stringContaining('"dataUpdatedAt"')]]), SOON)
})

test('over an evictOnQuota store (where db.transaction is refused), entries and the persister calls built on it work', async () => {
  const { db, clock } = await open()
  const storage = ttlStorage(db, 'spacious')
  const first = page(storage)
  await first.todos()
  await settle()
  await storage.setItem('other', 'kept')
  expect((await storage.entries()).map(([key]) => key)).toEqual(['other', 'tanstack-query-["todos"]'])

  const reload = page(storage)
  await reload.persister.restoreQueries(reload.client)
  expect(reload.client.getQueryData(['todos'])).toEqual(['from the network', 1])
  await reload.persister.persisterGc()
  await reload.persister.removeQueries({ queryKey: ['todos'] })
  expect(await storage.entries()).toEqual([['other', 'kept']])

  clock.advance(DAY * SECOND)
  expect(await storage.entries()).toEqual([])
})
