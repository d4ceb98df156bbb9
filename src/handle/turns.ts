/**
 * The order of a handle's calls on each store: a call creates its IndexedDB transaction over the
 * store only once every call made before it on that store created theirs (or gave up before
 * creating one), whatever each awaited first (owed touches, a gate, a chunk loaded on first use,
 * the settings read, values stashed in a generation). IndexedDB then runs the transactions of
 * one store in the order they were created, so that calls apply in the order they were made, as
 * requests issued in order do (docs/api.md). Only the creation waits: the IndexedDB work of one
 * call never waits for another's to end.
 */

/** A call's place in the order of one store's calls. */
export interface Turn {
  /** Settles once every call made before on the store created its transaction; none when no call is pending. */
  readonly before: Promise<unknown> | undefined
  /** This call created its transaction, or will create none: the calls after it may create theirs. Idempotent. */
  readonly take: () => void
}

/** The turns of a handle's calls, by store: the last one not done. A store is in it while a call on it has yet to create its transaction. */
export type Turns = Map<string, Promise<unknown>>

/** The turn of a call on `store` made now. */
export function turnOf(turns: Turns, store: string): Turn {
  const before = turns.get(store)
  let take!: () => void
  // Done once this call and every call before it are: one that gave up early lets no later one pass those.
  const done = Promise.all([before, new Promise<void>((resolve) => (take = resolve))])
  turns.set(store, done)
  void done.then(() => turns.get(store) === done && turns.delete(store))
  return { before, take }
}
