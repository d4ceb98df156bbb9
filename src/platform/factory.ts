/**
 * The IndexedDB a database lives in: its Storage Bucket's (`bucket.indexedDB`) once this realm
 * opened it in one (`bucket.ts`), the global `indexedDB` otherwise. Every open, deletion and
 * listing of a database (its generations included) asks here, so that the handle, the purge
 * worker and the generations all use the same bucket.
 */
const placed = new Map<string, IDBFactory>()

/** The IDBFactory database `name` lives in, in this realm. */
export function factoryOf(name: string): IDBFactory {
  return placed.get(name) ?? indexedDB
}

/** Places database `name` in `factory` (a bucket's), or back in the global one (`undefined`). */
export function place(name: string, factory: IDBFactory | undefined): void {
  if (factory) placed.set(name, factory)
  else placed.delete(name)
}
