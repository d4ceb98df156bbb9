/**
 * The part of the on-disk layout that says a store keeps its values in generation databases
 * (`generations/`): the field of a row that refers to its value, and the index over it. The
 * schema creates the index; reads, writes and the purge ask for it, and `idb-ttl/core`, which
 * reads no generations, refuses the stores that have it.
 */
/** The field of a row that refers to its value: generation and write id. */
export const GEN_FIELD = '$gen'
/** Index over the generation of each row, on stores that keep values in generations. */
export const GEN_INDEX = '$gen'
/** What {@link GEN_INDEX} indexes: the generation of a row's reference. */
export const GEN_KEY_PATH = `${GEN_FIELD}.g`
/** Whether a store keeps (some of) its values in generations: it has the generation index. */
export function hasGenerations(store: IDBObjectStore): boolean {
  return store.indexNames.contains(GEN_INDEX)
}

const usage = new WeakMap<IDBDatabase, Map<string, boolean>>()

/**
 * Whether the store keeps its values in generations on connection `db` (it has the generation
 * index): asked once per connection, whose schema no upgrade changes while it is open; the schema
 * check of an open ({@link noteGenerations}) answers it for the declared stores.
 */
export function usesGenerations(db: IDBDatabase, storeName: string): boolean {
  return usage.get(db)?.get(storeName) ?? noteGenerations(db, db.transaction(storeName).objectStore(storeName))
}

/**
 * Notes whether `store`, of a transaction on connection `db`, keeps its values in generations:
 * the schema check does, in the transaction it opens anyway, so that a first write opens none to ask.
 */
export function noteGenerations(db: IDBDatabase, store: IDBObjectStore): boolean {
  let known = usage.get(db)
  if (!known) usage.set(db, (known = new Map()))
  const uses = hasGenerations(store)
  known.set(store.name, uses)
  return uses
}

/** Where a row's value is: its generation and write id. */
export interface GenRef {
  g: number
  w: string
}

/** The reference of a stored row, if its value is kept in a generation. */
export function refOf(row: unknown): GenRef | undefined {
  const ref = row !== null && typeof row === 'object' ? ((row as Record<string, unknown>)[GEN_FIELD] as Partial<GenRef> | undefined) : undefined
  return typeof ref?.g === 'number' && typeof ref.w === 'string' ? (ref as GenRef) : undefined
}
