/**
 * Writing into generations and deleting them (the layout and reading are in `values.ts`).
 *
 * A write stores its values in the store's current generation first, then its rows. The rows'
 * transaction also reads the store's registry of live generations and commits only while the
 * values' generation is in it; a generation leaves the registry, in a transaction that found no
 * row referring to it, before it is deleted. So a write cut short leaves at most values no row
 * refers to, and a committed row never refers to a deleted generation. The current generation
 * is replaced by a new one once about a sixteenth of the store was written to it.
 */
import { EXPIRY_INDEX, MARK_FIELD, META_STORE } from '../layout/expiry-index.js'
import { GEN_FIELD, GEN_INDEX, usesGenerations, type GenRef } from '../layout/generation-index.js'
import { closeGeneration, generationFactory, generationName, generationTransaction, storeGenerationPrefix, valuesRead, VALUES_STORE } from './values.js'
import { storageEstimate } from '../platform/storage.js'
import { ORDER_FIELD, WRITER_FIELD } from '../layout/stamp.js'
import { abortQuietly, done, req } from '../platform/request.js'
import { factoryOf } from '../platform/factory.js'
import { TS_INDEX } from '../rules/capacity.js'

/**
 * Bytes written to a generation before the next one starts: a sixteenth of what the store's live
 * generations hold, from {@link MIN_GENERATION_BYTES} to {@link MAX_GENERATION_BYTES}, and at
 * most a sixteenth of the origin's quota. So a full disk gives back about a sixteenth of the
 * store per generation deleted, and a read visits at most a few dozen databases however large
 * the store. Measured in Chromium 156 at a 10 MB origin quota, a stream of 20 kB writes ten times
 * the quota: every write went through with generations of 512 kB and 1 MB, and this rule; with
 * 2 MB, one to three were refused in each run (the rows' own garbage, which LevelDB reclaims only
 * when it compacts, leaves less room to the values, and a generation is the unit that comes back).
 */
const MIN_GENERATION_BYTES = 256 * 1024
const MAX_GENERATION_BYTES = 64 * 1024 * 1024
const SHARE = 1 / 16

const quotas = new WeakMap<IDBDatabase, Promise<number>>()

/** A sixteenth of the origin's quota (`Infinity` where the browser does not say): read once per connection. */
function quotaShare(db: IDBDatabase): Promise<number> {
  let share = quotas.get(db)
  if (!share) {
    share = storageEstimate().then((estimate) => (estimate?.quota === undefined ? Infinity : Math.max(1, estimate.quota * SHARE)))
    quotas.set(db, share)
  }
  return share
}

type Item = Record<string, unknown>

/**
 * The registry of a store's live generations: a record per generation in the metadata store,
 * under `['generations', store, n]`, holding the bytes written to it. The highest is the current
 * one. One record each, so that a generation leaves it by a deletion alone: at a full disk,
 * Chromium refuses a transaction that writes anything, but lets one that only deletes through.
 * Generations are numbered by a counter under `['last generation', store]` that only goes up: a
 * number is never used again, for a generation deleted while a write may still be filling it.
 */
interface Generation {
  n: number
  bytes: number
}

const generationKey = (storeName: string, n: number) => ['generations', storeName, n]
const counterKey = (storeName: string) => ['last generation', storeName]
const registryRange = (storeName: string) => IDBKeyRange.bound(['generations', storeName], ['generations', storeName, []])

/** The live generations of a store, oldest first. */
async function generations(meta: IDBObjectStore, storeName: string): Promise<Generation[]> {
  const keys = (await req(meta.getAllKeys(registryRange(storeName)))) as [string, string, number][]
  const values = (await req(meta.getAll(registryRange(storeName)))) as { bytes: number }[]
  return keys.map(([, , n], i) => ({ n, bytes: values[i].bytes }))
}

/** The highest generation number ever given to the store (-1: none yet). */
async function lastNumber(meta: IDBObjectStore, storeName: string): Promise<number> {
  return (await req<number | undefined>(meta.get(counterKey(storeName)))) ?? -1
}

/** Registers a new current generation, numbered after every earlier one. */
async function startGeneration(meta: IDBObjectStore, storeName: string): Promise<number> {
  const n = (await lastNumber(meta, storeName)) + 1
  meta.put(n, counterKey(storeName))
  meta.put({ bytes: 0 }, generationKey(storeName, n))
  return n
}

/** Values stored in a generation, waiting for their rows. */
export interface Stash {
  gen: number
  ids: string[]
  bytes: number
  /** A sixteenth of the origin's quota: no generation grows beyond it. */
  quotaShare: number
}

/** A generation this realm writes into, and whether it has stored values there: its database exists then, unless deleted since. */
interface Current {
  n: number
  stored: boolean
}

/** Per database and store, the generation this realm writes into (as it last saw the registry). */
const current = new Map<string, Current>()
const currentKey = (dbName: string, storeName: string) => `${dbName}\u0000${storeName}`
let writes = 0

/** A write id no other write of any realm shares. */
function writeId(): string {
  return `${Date.now().toString(36)}.${Math.random().toString(36).slice(2)}.${(writes++).toString(36)}`
}

/**
 * The generation this realm writes `storeName`'s values into (as it last saw the registry, or as
 * the registry says), and a transaction over its values.
 */
async function currentGeneration(db: IDBDatabase, storeName: string, durability?: IDBTransactionDurability): Promise<{ gen: Current; tx: IDBTransaction }> {
  const where = currentKey(db.name, storeName)
  let gen = current.get(where)
  // One this realm stored values in is not created again if it is gone: quota relief (here or in
  // another realm) deletes the current generation once no row refers to it, and values stashed in
  // it created again hold room that no row refers to and no deletion before the next gives back.
  const tx = gen?.stored ? await generationTransaction(generationName(db.name, storeName, gen.n), false, 'readwrite', durability) : undefined
  if (gen && tx) return { gen, tx }
  if (gen === undefined || gen.stored) {
    const registry = db.transaction(META_STORE, 'readwrite', { durability })
    const committed = done(registry)
    const meta = registry.objectStore(META_STORE)
    gen = { n: (await generations(meta, storeName)).at(-1)?.n ?? (await startGeneration(meta, storeName)), stored: false }
    await committed
    current.set(where, gen)
  }
  return { gen, tx: (await generationTransaction(generationName(db.name, storeName, gen.n), true, 'readwrite', durability))! }
}

/**
 * Stores `values` in the store's current generation (as this realm last saw it, or as its
 * registry says), in one transaction. Rejects with the engine's error (`QuotaExceededError`);
 * a value the engine refuses at once (`DataCloneError`) with `refused(error, its index)`.
 */
export async function stash(
  db: IDBDatabase,
  storeName: string,
  values: readonly Item[],
  durability?: IDBTransactionDurability,
  refused: (error: unknown, index: number) => unknown = (error) => error,
): Promise<Stash> {
  const { gen, tx } = await currentGeneration(db, storeName, durability)
  const committed = done(tx)
  const ids = values.map(() => writeId())
  for (const [i, value] of values.entries()) {
    try {
      tx.objectStore(VALUES_STORE).put(value, ids[i])
    } catch (error) {
      committed.catch(() => {})
      abortQuietly(tx)
      throw refused(error, i)
    }
  }
  await committed
  gen.stored = true
  return { gen: gen.n, ids, bytes: values.reduce<number>((sum, value) => sum + sizeOf(value), 0), quotaShare: await quotaShare(db) }
}

/**
 * Inside the rows' transaction (over the store and the metadata store): whether the stashed
 * values' generation is still live, counting their bytes and starting a new generation when the
 * current one is full. When it is live but no longer the current one (another realm started a
 * newer one), the values stay there and this realm's next write goes to the current one. When
 * it is not live, the caller aborts and stashes again.
 */
export async function admit(meta: IDBObjectStore, dbName: string, storeName: string, stash: Stash): Promise<boolean> {
  const live = await generations(meta, storeName)
  const where = currentKey(dbName, storeName)
  const newest = live.at(-1)
  const mine = live.find((generation) => generation.n === stash.gen)
  if (!mine) {
    if (newest) current.set(where, { n: newest.n, stored: false })
    else current.delete(where)
    return false
  }
  const bytes = mine.bytes + stash.bytes
  meta.put({ bytes }, generationKey(storeName, stash.gen))
  if (mine !== newest) {
    // Another realm (tab) has moved on from this generation: so does this one, from its next
    // write. Staying, it would fill an older generation without end, which then never empties.
    current.set(where, { n: newest!.n, stored: false })
    return true
  }
  const held = live.reduce((sum, generation) => sum + generation.bytes, stash.bytes)
  const limit = Math.min(stash.quotaShare, MAX_GENERATION_BYTES, Math.max(MIN_GENERATION_BYTES, held * SHARE))
  if (bytes >= limit) current.set(where, { n: await startGeneration(meta, storeName), stored: false })
  return true
}

/** A field of this size or less stays in the row, for indexes an upgrade may add later. */
export const ROW_FIELD_BYTES = 256

/**
 * The rows stored in place of stashed values: the library's bookkeeping, the reference, every
 * field a key path or an index reads (whole: `a` for `a.b`, `title` for `title.length`), and
 * every other field of at most {@link ROW_FIELD_BYTES}, so that an index an upgrade adds over
 * such a field finds it in rows written before.
 */
export function rowsOf(store: IDBObjectStore, values: readonly Item[], stash: Stash): Item[] {
  const read = new Set<string>(['_ts', MARK_FIELD, ORDER_FIELD, WRITER_FIELD, 'ttl'])
  const add = (keyPath: string | string[] | null) => {
    for (const path of Array.isArray(keyPath) ? keyPath : keyPath === null ? [] : [keyPath]) read.add(path.split('.')[0])
  }
  add(store.keyPath)
  for (const name of Array.from(store.indexNames)) {
    if (name !== EXPIRY_INDEX && name !== TS_INDEX && name !== GEN_INDEX) add(store.index(name).keyPath)
  }
  return values.map((value, i) => {
    const row: Item = {}
    for (const [field, fieldValue] of Object.entries(value)) {
      if (read.has(field) || sizeOf(fieldValue) <= ROW_FIELD_BYTES) row[field] = fieldValue
    }
    row[GEN_FIELD] = { g: stash.gen, w: stash.ids[i] } satisfies GenRef
    return row
  })
}

/** About how many bytes a value takes (strings, binary data and numbers; structure roughly). */
function sizeOf(value: unknown, seen = new WeakSet<object>()): number {
  if (typeof value === 'string') return 2 * value.length
  if (value === null || typeof value !== 'object') return 8
  if (ArrayBuffer.isView(value)) return value.byteLength
  if (value instanceof ArrayBuffer) return value.byteLength
  if (typeof Blob !== 'undefined' && value instanceof Blob) return value.size
  // Structured clone keeps cycles and shared parts: each object is counted once.
  if (seen.has(value)) return 8
  seen.add(value)
  let size = 8
  for (const [key, field] of Object.entries(value)) size += 2 * key.length + sizeOf(field, seen)
  return size
}

/**
 * Deletes the store's generations no row refers to any more: they leave the registry in one
 * transaction with the rows' check (deletions only: it goes through at a full disk), then are
 * deleted whole. The current generation goes too once it held values and none is referred to
 * (the next write starts a new one). Generations left out of the registry by a write or a
 * deletion cut short are found by `indexedDB.databases()` where the browser has it. Resolves to
 * how many were deleted.
 */
export async function dropUnreferenced(db: IDBDatabase, storeName: string): Promise<number> {
  const tx = db.transaction([storeName, META_STORE], 'readwrite')
  const committed = done(tx)
  committed.catch(() => {})
  const meta = tx.objectStore(META_STORE)
  const registered = generations(meta, storeName)
  const numbered = lastNumber(meta, storeName)
  // Asked for side by side: if the walk below fails first, the transaction's abort fails these
  // too, and that must not surface as an unhandled rejection; the walk's error is the one thrown.
  for (const pending of [registered, numbered]) pending.catch(() => {})
  const referenced = await generationNumbers(tx.objectStore(storeName).index(GEN_INDEX))
  const live = await registered
  const newest = live.at(-1)
  // The current generation goes only once it held values: a fresh one is about to be filled.
  const dead = live.filter(({ n, bytes }) => !referenced.has(n) && (n !== newest?.n || bytes > 0)).map(({ n }) => n)
  for (const n of dead) meta.delete(generationKey(storeName, n))
  await committed
  const strays = await strayGenerations(db.name, storeName, live.map(({ n }) => n), await numbered)
  await Promise.all([...dead, ...strays].map((n) => deleteGeneration(generationName(db.name, storeName, n))))
  return dead.length
}

/**
 * The generation numbers rows of the store refer to, each once. A key cursor steps from one
 * number to the next (numbers are integers): `'nextunique'` would do the same, but on an empty
 * index it fails in WebKit on disk (`UnknownError: Unable to open cursor`).
 */
function generationNumbers(index: IDBIndex): Promise<Set<number>> {
  const numbers = new Set<number>()
  const request = index.openKeyCursor()
  return new Promise((resolve, reject) => {
    request.onerror = () => reject(request.error)
    request.onsuccess = () => {
      const cursor = request.result
      if (!cursor) return resolve(numbers)
      numbers.add(cursor.key as number)
      cursor.continue((cursor.key as number) + 1)
    }
  })
}

/**
 * {@link dropUnreferenced} for each of `stores` that keeps its values in generations; resolves to
 * how many went, `undefined` when none of them does.
 */
export async function dropGenerationsOf(db: IDBDatabase, stores: readonly string[]): Promise<number | undefined> {
  // Reads of this realm still under way in a generation (an expiry event's values) come first.
  await valuesRead(db.name)
  let dropped: number | undefined
  for (const store of stores) if (usesGenerations(db, store)) dropped = (dropped ?? 0) + (await dropUnreferenced(db, store))
  return dropped
}

/**
 * Generations numbered up to `last` (the counter as the registry was read) that exist but are not
 * in its `live`: left by a write or a deletion cut short. One numbered later may be filling now.
 */
async function strayGenerations(dbName: string, storeName: string, live: readonly number[], last: number): Promise<number[]> {
  const prefix = storeGenerationPrefix(dbName, storeName)
  const names = (await factoryOf(dbName).databases?.().catch(() => undefined)) ?? []
  return names
    .map(({ name }) => (name?.startsWith(prefix) ? Number(name.slice(prefix.length)) : NaN))
    .filter((n) => Number.isSafeInteger(n) && n <= last && !live.includes(n))
}

function deleteGeneration(name: string): Promise<void> {
  closeGeneration(name)
  return new Promise((resolve) => {
    const request = generationFactory(name).deleteDatabase(name)
    // Other realms close their connections on versionchange; a failure leaves a stray for later.
    // Blocked (a frozen page keeps a connection open): it goes once that closes; none waits for it.
    request.onsuccess = request.onerror = request.onblocked = () => resolve()
  })
}
