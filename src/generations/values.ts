/**
 * Where a store with `evictOnQuota` keeps its values: out of its rows, in *generation*
 * databases that are deleted whole (SPEC §9; docs/capacity-and-quota.md). Chromium and WebKit
 * give the room of deleted records back only when their storage compacts, which a full disk
 * never gets to; a deleted database's room comes back at once. So such a store keeps in its rows
 * only what IndexedDB needs (the key, indexed fields, the library's bookkeeping) and a reference
 * `$gen` to the value, stored by a write id in the store's current generation. Deleting or
 * evicting a row leaves its value behind until no row refers to its generation any more; then
 * the generation is deleted (`stash.ts`).
 *
 * This module is what reads need: naming, opening and reading generations. A row without `$gen`
 * holds its value itself (stores without `evictOnQuota`, and ones created before this layout).
 */
import { MARK_FIELD } from '../layout/expiry-index.js'
import { ORDER_FIELD, WRITER_FIELD } from '../layout/stamp.js'
import { factoryOf } from '../platform/factory.js'
import { req } from '../platform/request.js'
import { refOf } from '../layout/generation-index.js'
import { GEN, generationPrefix } from './names.js'

/** The one object store of a generation database: values by write id. */
export const VALUES_STORE = 'v'

type Item = Record<string, unknown>

/** The IDBFactory a generation lives in: its database's (its Storage Bucket's, if it is in one). */
export function generationFactory(generation: string): IDBFactory {
  return factoryOf(generation.slice(0, generation.lastIndexOf(GEN)))
}

/** What the names of a store's generations start with. */
export function storeGenerationPrefix(dbName: string, storeName: string): string {
  return `${generationPrefix(dbName)}${storeName}~`
}

/** The generation database `n` of a store. */
export function generationName(dbName: string, storeName: string, n: number): string {
  return `${storeGenerationPrefix(dbName, storeName)}${n}`
}

const connections = new Map<string, Promise<IDBDatabase | undefined>>()

/**
 * Each generation connection's IndexedDB, for as long as the connection lives: Chromium stalls
 * every transaction of a connection, for good, once the Storage Bucket it came from is garbage
 * collected, and a later open of the database in this realm places it anew.
 */
const factories = new WeakMap<IDBDatabase, IDBFactory>()

/**
 * A transaction over a generation's values, on a connection opened on first use and closed as
 * soon as another connection wants to delete the generation. With `create` false, a generation
 * that does not exist (it was deleted) is not created again: `undefined`. A connection closed
 * under us (by the browser, with no `close` event) is opened again.
 */
export async function generationTransaction(name: string, create: boolean, mode: IDBTransactionMode, durability?: IDBTransactionDurability): Promise<IDBTransaction | undefined> {
  for (let attempt = 0; ; attempt++) {
    const db = await (connections.get(name) ?? reopen(name, create))
    // Not there: found so by a read's open that did not create it, or (a read) not there at all.
    if (!db) {
      if (create && attempt === 0) continue
      return undefined
    }
    try {
      return db.transaction(VALUES_STORE, mode, { durability })
    } catch (error) {
      if ((error as DOMException).name !== 'InvalidStateError' || attempt > 1) throw error
      closeGeneration(name)
    }
  }
}

function reopen(name: string, create = true): Promise<IDBDatabase | undefined> {
  const opening = new Promise<IDBDatabase | undefined>((resolve, reject) => {
    const factory = generationFactory(name)
    const request = factory.open(name, 1)
    let missing = false
    request.onupgradeneeded = () => {
      missing = !create
      if (missing) return request.transaction?.abort()
      request.result.createObjectStore(VALUES_STORE)
    }
    request.onsuccess = () => {
      const db = request.result
      factories.set(db, factory)
      const forget = () => {
        db.close()
        if (connections.get(name) === opening) connections.delete(name)
      }
      db.onversionchange = forget
      db.onclose = forget
      resolve(db)
    }
    request.onerror = () => (missing ? resolve(undefined) : reject(request.error))
  })
  connections.set(name, opening)
  // A failed or refused open is not kept: the next use tries again.
  opening.then((db) => db ?? connections.delete(name), () => connections.delete(name))
  return opening
}

/** Closes this realm's connection to a generation (before deleting it). */
export function closeGeneration(name: string): void {
  const open = connections.get(name)
  connections.delete(name)
  void open?.then((db) => db?.close(), () => {})
}

/**
 * How a handle reads the values its stores keep in generations: a full handle's
 * ({@link generationValues}). `idb-ttl/core`'s has none, and refuses the stores that keep them
 * (`handle/core-routes.ts`): it carries none of this folder.
 */
export interface GenerationValues {
  /** The values `rows` of `storeName` refer to, as {@link resolveRows} reads them. */
  resolve(dbName: string, storeName: string, rows: readonly unknown[]): Promise<unknown[]>
}

/** The values rows refer to, read from their generations. */
export const generationValues: GenerationValues = { resolve: resolveRows }

/**
 * The values the rows refer to, in order: a row without a reference is its own value; one whose
 * value is gone (its generation deleted since the row was read: the item was evicted) is
 * `undefined`. A row's `_ts`, expiry mark and write order win over its value's: a touch rewrites the row only.
 */
export function resolveRows(dbName: string, storeName: string, rows: readonly unknown[]): Promise<unknown[]> {
  const read = readRows(dbName, storeName, rows)
  const pending = reading.get(dbName) ?? new Set()
  reading.set(dbName, pending.add(read))
  void read
    .finally(() => pending.delete(read) && pending.size === 0 && reading.get(dbName) === pending && reading.delete(dbName))
    .catch(() => {})
  return read
}

/** Per database, this realm's reads of values still under way. */
const reading = new Map<string, Set<Promise<unknown>>>()

/**
 * Resolves once this realm has no read of the database's values under way: a generation is
 * deleted only after them, so that an expiry event being published keeps the values it reports.
 */
export async function valuesRead(dbName: string): Promise<void> {
  for (let pending = reading.get(dbName); pending?.size; pending = reading.get(dbName)) await Promise.allSettled(pending)
}

async function readRows(dbName: string, storeName: string, rows: readonly unknown[]): Promise<unknown[]> {
  const wanted = new Map<number, number[]>()
  rows.forEach((row, i) => {
    const ref = refOf(row)
    if (ref) wanted.set(ref.g, [...(wanted.get(ref.g) ?? []), i])
  })
  if (wanted.size === 0) return [...rows]
  const out: unknown[] = [...rows]
  await Promise.all(
    [...wanted].map(async ([g, at]) => {
      let values: unknown[] = at.map(() => undefined)
      try {
        const store = (await generationTransaction(generationName(dbName, storeName, g), false, 'readonly'))?.objectStore(VALUES_STORE)
        if (store) values = await Promise.all(at.map((i) => req(store.get(refOf(rows[i])!.w))))
      } catch (error) {
        // Deleted while being read: its connection closes (InvalidStateError) or its transaction
        // aborts under the read. The items went with it; any other failure is the read's.
        const name = (error as DOMException | null)?.name
        if (name !== 'InvalidStateError' && name !== 'AbortError') throw error
      }
      at.forEach((i, j) => (out[i] = values[j] === undefined ? undefined : withBookkeeping(values[j] as Item, rows[i] as Item)))
    }),
  )
  return out
}

function withBookkeeping(value: Item, row: Item): Item {
  const full: Item = { ...value, _ts: row._ts }
  for (const field of [MARK_FIELD, ORDER_FIELD, WRITER_FIELD]) {
    if (row[field] === undefined) delete full[field]
    else full[field] = row[field]
  }
  return full
}
