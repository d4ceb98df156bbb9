/**
 * Write observers: a mechanism above the handle (the Cosmos DB mirror's outbox) that must record
 * every change of a store in the transaction that makes it, so that the record exists exactly
 * when the change committed. A store with an observer is written only through transactions
 * (`handle/routes.ts`), which add the observer's own stores to their scope and call it.
 */

/** Hears the changes of one store, inside the transaction that makes them. */
export interface WriteObserver {
  /** The library's own object stores the observer writes; added to every observed transaction. */
  readonly stores: readonly string[]
  /** A write stored `item` (as reads now return it, `_ts` included) at `key`. */
  put(tx: IDBTransaction, key: IDBValidKey, item: Record<string, unknown>): void
  /** The live item at `key` was deleted by a delete or a clear (deleting an expired one is a no-op, SPEC §2). */
  delete(tx: IDBTransaction, key: IDBValidKey): void
}

const NONE: readonly WriteObserver[] = Object.freeze([])

/** The observers of a handle's stores. */
export class Observers {
  private readonly byStore = new Map<string, Set<WriteObserver>>()

  /** Adds `observer` to `store`; returns a function that removes it. */
  add(store: string, observer: WriteObserver): () => void {
    let set = this.byStore.get(store)
    if (!set) this.byStore.set(store, (set = new Set()))
    set.add(observer)
    return () => void set.delete(observer)
  }

  /** The observers of `store` (empty when none). */
  of(store: string): readonly WriteObserver[] {
    const set = this.byStore.get(store)
    // Asked for at every write of a transaction: a store without observers costs no copy.
    return set && set.size > 0 ? [...set] : NONE
  }

  /** The extra object stores a transaction over `stores` must hold for their observers. */
  storesFor(stores: readonly string[]): string[] {
    return [...new Set(stores.flatMap((store) => this.of(store).flatMap((observer) => observer.stores)))]
  }
}
