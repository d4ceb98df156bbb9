// Loaders a test controls, handed into `openFull` as the page entries hand theirs
// (assembly/open-page.ts): each chunk can be held (as a slow network holds an `import()`) or made
// to reject (an offline PWA whose chunk was never cached), and counts its loads.
import * as staleReads from '../../src/reads/stale.js'
import * as duringWork from '../../src/background/during-work.js'
import * as touchWork from '../../src/reads/touch.js'
import * as mirrorWork from '../../src/transaction/mirror-queue.js'
import * as follow from '../../src/live/subscribers.js'
import * as calls from '../../src/assembly/calls.js'
import * as refusalTexts from '../../src/rules/full-texts.js'
import { fullBackground } from '../../src/background/page.js'
import { inlinePurger } from '../../src/background/inline.js'
import { lazyBackground } from '../../src/background/lazy.js'
import type { MakeBackground } from '../../src/background/background.js'
import { openFull, type FullLoaders } from '../../src/assembly/open-full.js'
import { dropGenerationsOf } from '../../src/generations/stash.js'
import { resolveRows } from '../../src/generations/values.js'
import * as storageWatch from '../../src/handle/storage-watch.js'
import * as storageWork from '../../src/handle/storage-work.js'
import * as upgradeWork from '../../src/layout/upgrade.js'
import * as optionChecks from '../../src/layout/options.js'
import * as reliefSteps from '../../src/purge/relief.js'
import type { OpenTtlDBOptions } from '../../src/rules/types.js'
import * as transactions from '../../src/handle/transact.js'
import * as stashedWrites from '../../src/writes/stashed-writes.js'

export { SOON } from '../waits.js'

/**
 * The names of the databases there are now. WebKit lists a database whose creation was aborted
 * (the open without a version's) at version 0, which every open finds absent: it is not counted.
 */
export const existing = async () => (await indexedDB.databases()).filter((db) => db.version !== 0).map((db) => db.name)

/** One chunk: `hold()` makes its next loads wait for `release()`; `failNext(error)` makes the next one reject. */
export class Chunk<T> {
  loads = 0
  private held: { promise: Promise<void>; release: () => void } | undefined
  private failures: unknown[] = []

  constructor(private readonly module: T) {}

  hold(): void {
    let release!: () => void
    this.held = { promise: new Promise<void>((resolve) => (release = resolve)), release }
  }

  release(): void {
    const held = this.held
    this.held = undefined
    held?.release()
  }

  failNext(error: unknown): void {
    this.failures.push(error)
  }

  readonly load = async (): Promise<T> => {
    this.loads++
    const failure = this.failures.length > 0 ? { error: this.failures.shift() } : undefined
    // A macrotask at least, as a fetched chunk takes.
    await new Promise((resolve) => setTimeout(resolve, 0))
    await this.held?.promise
    if (failure) throw failure.error
    return this.module
  }
}

/** Every chunk of the full page entry, each a {@link Chunk}, and `open` with them. */
export function chunks() {
  const c = {
    upgrade: new Chunk(upgradeWork),
    options: new Chunk(optionChecks),
    storage: new Chunk(storageWork),
    relief: new Chunk(reliefSteps),
    watch: new Chunk(storageWatch),
    transactions: new Chunk(transactions),
    stashWork: new Chunk({ ...stashedWrites, dropGenerationsOf, resolveRows }),
    texts: new Chunk(refusalTexts),
    stale: new Chunk(staleReads),
    during: new Chunk(duringWork),
    touches: new Chunk(touchWork),
    mirror: new Chunk(mirrorWork),
    follow: new Chunk(follow),
    calls: new Chunk(calls),
    background: new Chunk({ makeBackground: fullBackground(inlinePurger) }),
  }
  const loaders: FullLoaders = {
    upgrade: c.upgrade.load,
    options: c.options.load,
    storage: c.storage.load,
    relief: c.relief.load,
    watch: c.watch.load,
    transactions: c.transactions.load,
    stashWork: c.stashWork.load,
    texts: c.texts.load,
    stale: c.stale.load,
    during: c.during.load,
    touches: c.touches.load,
    mirror: c.mirror.load,
    follow: c.follow.load,
    calls: c.calls.load,
  }
  const background: MakeBackground = lazyBackground(c.background.load)
  const open = (name: string, options: Partial<OpenTtlDBOptions>, made: MakeBackground = background) =>
    openFull(name, { version: 1, purge: { mode: 'off' }, stores: { s: { keyPath: 'id', defaultTtl: 60 } }, ...options }, made, loaders)
  return { ...c, loaders, open }
}
