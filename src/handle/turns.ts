/**
 * The order of a handle's calls on each store: a call creates its IndexedDB transaction over the
 * store only once every call made before it on that store created theirs (or gave up before
 * creating one), whatever each awaited first (owed touches, a gate, a chunk loaded on first use,
 * the settings read, values stashed in a generation). IndexedDB then runs the transactions of
 * one store in the order they were created, so that calls apply in the order they were made, as
 * requests issued in order do (docs/architecture.md). Only the creation waits: the IndexedDB
 * work of one call never waits for another's to end.
 */

/** A call's place in the order of one store's calls. */
export class Turn {
  /** Every call before this one, and this one, created its transaction or gave up. */
  private done = false
  private wake?: () => void
  private waited?: Promise<void>

  constructor(
    /** The call made just before on the store, until it is done. */
    private before: Turn | undefined,
    private readonly leave: (turn: Turn) => void,
  ) {}

  /** `undefined` when every call made before on the store created its transaction; else when they have. */
  ready(): Promise<void> | undefined {
    const before = this.before
    if (!before || before.done) return undefined
    return (before.waited ??= new Promise((resolve) => (before.wake = resolve)))
  }

  /**
   * This call created its transaction, or will create none: the calls after it may create theirs
   * once the calls before it did too (one that gave up early does not let later ones pass those).
   * Idempotent.
   */
  take(): void {
    if (this.done) return
    const ready = this.ready()
    if (ready) void ready.then(() => this.free())
    else this.free()
  }

  private free(): void {
    if (this.done) return
    this.done = true
    this.before = undefined
    this.wake?.()
    this.leave(this)
  }
}

/** The turns of a handle's calls, by store: the last one that is not done. */
export class Turns {
  private readonly last = new Map<string, Turn>()

  /** Whether a call on `store` has yet to create its transaction. */
  pending(store: string): boolean {
    return this.last.has(store)
  }

  /** The turn of a call on `store` made now. */
  of(store: string): Turn {
    const turn: Turn = new Turn(this.last.get(store), () => this.last.get(store) === turn && this.last.delete(store))
    this.last.set(store, turn)
    return turn
  }
}
