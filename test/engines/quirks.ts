// Engine bugs and differences that some tests cannot pass over, each detected at run time by a
// probe, so that a test is skipped only where the engine does it, and runs again once it no longer
// does.

/**
 * WebKit's on-disk IndexedDB (WebKitGTK 2.50.6, SQLite backend) fails a cursor with direction
 * 'nextunique' over an empty index: the request errors with `UnknownError: Unable to open cursor`
 * (and the transaction aborts) where the in-memory backend, Chromium, Firefox and fake-indexeddb
 * give `null`. 'next' over the same index, and 'nextunique' over an index with a row, work.
 * The library's dropUnreferenced (src/generations/stash.ts) walked the `$gen` index that way, and
 * failed in WebKit on disk once a store keeping its values in generations had no row left; it
 * now steps from key to key with 'next'.
 */
export async function emptyIndexUniqueCursorFails(): Promise<boolean> {
  const upgrade = (db: IDBDatabase) => db.createObjectStore('s').createIndex('i', 'i')
  return withProbeDatabase('unique-cursor', upgrade, (db) =>
    new Promise<boolean>((resolve) => {
      const request = db.transaction('s').objectStore('s').index('i').openKeyCursor(null, 'nextunique')
      request.onsuccess = () => resolve(false)
      request.onerror = (event) => (event.preventDefault(), resolve(request.error?.name === 'UnknownError'))
    }),
  )
}

/**
 * How many requests, one after the other, a probe holds a raw transaction open for while another
 * one is expected to complete beside it: far more than it takes (2 or 3 in every engine here). A
 * probe that runs out of them only skips a test; tests of the library hold by time instead
 * (test/waits.ts's holdOpenUntil), as its calls beside take many more requests, more under load.
 */
const HOLD_REQUESTS = 1000

/**
 * Chromium, Firefox and WebKit on disk run one readwrite transaction of a database at a time,
 * whatever its stores: a readwrite transaction over one store waits for one over another store to
 * end, in raw IndexedDB (where the specification lets them run side by side, as fake-indexeddb
 * and WebKit in memory do). Reads never wait for a transaction over other stores. The library
 * cannot help the first (SPEC §11: a transaction never delays reads or writes of stores it does
 * not name): `test/transaction/other-stores.test.ts` asserts writes beside a readwrite
 * transaction only where this is false.
 */
export async function oneWriterAtATime(): Promise<boolean> {
  return withProbeDatabase('one-writer', twoStores, async (db) => {
    const held = db.transaction('held', 'readwrite')
    const beside = ended(db.transaction('other', 'readwrite'), (tx) => tx.objectStore('other').put(1, 1))
    const ranBeside = await holdUntil(held, 'held', () => beside.done)
    await beside.promise
    return !ranBeside
  })
}

/**
 * Firefox and WebKit on disk start a readwrite transaction before an earlier readwrite one that
 * is still waiting (for a reader of its store), and then, one writer at a time, hold the earlier
 * one up until the later ends; Chromium starts them in order. So a transaction that waited for
 * another one created after it (a read-only one queued behind the earlier writer) would wait for
 * ever there: `db.transaction` reads the settings it judges by before it opens its own
 * (`src/transaction/run.ts`), never beside it.
 */
export async function laterWriterHoldsUpEarlierOne(): Promise<boolean> {
  return withProbeDatabase('writer-order', twoStores, async (db) => {
    let readerReleased = false
    const reader = db.transaction('other', 'readonly')
    const readerEnded = holdUntil(reader, 'other', () => readerReleased)
    const earlier = ended(db.transaction('other', 'readwrite'), (tx) => tx.objectStore('other').put(1, 1))
    let started: boolean | undefined
    const ranEarlier = await holdUntil(db.transaction('held', 'readwrite'), 'held', () => {
      // At its first request, the later writer has started: had the earlier one?
      started ??= !earlier.done
      readerReleased = true
      return earlier.done
    })
    await Promise.all([readerEnded, earlier.promise])
    return started === true && !ranEarlier
  })
}

/**
 * Keeps `tx` open by a chain of requests on `store` until `done()`, asked at each request's
 * success (first once the transaction has started), or {@link HOLD_REQUESTS}; resolves to `done()`.
 */
function holdUntil(tx: IDBTransaction, store: string, done: () => boolean): Promise<boolean> {
  return new Promise((resolve) => {
    let requests = 0
    const next = () => {
      tx.objectStore(store).get(1).onsuccess = () => (done() || ++requests >= HOLD_REQUESTS ? resolve(done()) : next())
    }
    next()
  })
}

/** `tx` with `request` made on it, and whether it has ended. */
function ended(tx: IDBTransaction, request: (tx: IDBTransaction) => void) {
  request(tx)
  const state = { done: false, promise: new Promise((resolve) => (tx.oncomplete = tx.onabort = resolve)) }
  void state.promise.then(() => (state.done = true))
  return state
}

/** The stores of the transaction probes: one held open, the other beside it. */
const twoStores = (db: IDBDatabase) => ['held', 'other'].forEach((store) => db.createObjectStore(store))

/** Runs `probe` on a fresh database that `upgrade` made, deleted after; `false` where there is no IndexedDB. */
async function withProbeDatabase<T>(prefix: string, upgrade: (db: IDBDatabase) => void, probe: (db: IDBDatabase) => Promise<T>): Promise<T | false> {
  if (typeof indexedDB === 'undefined') return false
  const name = `probe-${prefix}-${crypto.randomUUID()}`
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open(name, 1)
    open.onupgradeneeded = () => upgrade(open.result)
    open.onsuccess = () => resolve(open.result)
    open.onerror = () => reject(open.error)
  })
  try {
    return await probe(db)
  } finally {
    db.close()
    await new Promise((resolve) => {
      const deletion = indexedDB.deleteDatabase(name)
      deletion.onsuccess = deletion.onerror = resolve
    })
  }
}
