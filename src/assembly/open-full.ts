/**
 * `openTtlDB` of `idb-ttl` and `idb-ttl/service-worker`, less how the purge starts: the
 * full handle ({@link TtlDB}), and the app's `upgrade` given idb's views (SPEC §5), which
 * `idb-ttl/core` leaves out so as to carry no idb.
 */
import { wrap, type DBSchema, type IDBPDatabase } from 'idb'
import type { MakeBackground } from '../background/background.js'
import { TtlDB } from './db.js'
import type { LoadCalls } from './core-db.js'
import { Parts, type TouchWork } from '../handle/parts.js'
import { PurgeReports } from '../events/reports.js'
import { Presence } from '../live/notices.js'
import type { LiveSource } from '../live/query.js'
import { Routes, type FullLoads, type MirrorWork } from '../handle/routes.js'
import type { watchStorage } from '../handle/storage-watch.js'
import { openDatabase, type Loaders } from './open.js'
import { explain, refuse } from '../rules/refusal.js'
import { holdLock } from '../platform/lock.js'
import { once } from '../platform/load.js'
import type { LostReport, OpenTtlCoreDBOptions, OpenTtlDBOptions, StoreConfig } from '../rules/types.js'

/**
 * Opens `name` with a full handle whose background (how its purge starts) `background` makes, and
 * with the schema work, the storage work, the watch of the database's storage (only where `onLost`
 * or `bucket.expiresAfterItems` asks for it) and what its routes load on first use, as `load` brings them.
 */
export async function openFull<S extends DBSchema | unknown>(name: string, options: OpenTtlDBOptions<S>, background: MakeBackground, loaders: FullLoaders): Promise<TtlDB<S>> {
  // Asked for by the relief and again by its round of eviction: one load. Asked for by every
  // transaction, less common call, stale read, `purgeDuring` and write of values kept in generations: an
  // `import()` of a module loaded already still waits for the module loader (0.4 ms in Chromium),
  // where a promise kept resolves at the next microtask.
  const { relief, follow, transactions, calls, stale, stashWork, during } = loaders
  const load = { ...loaders, locks: heldLocks, relief: once(relief), follow: once(follow), transactions: once(transactions), calls: once(calls), stale: once(stale), stashWork: once(stashWork), during: once(during) }
  const { onLost, bucket } = (options ?? {}) as OpenTtlDBOptions<S>
  if (onLost !== undefined && typeof onLost !== 'function') return explain(refuse('INVALID_OPTION', 'onLost', onLost), loaders.texts)
  const watching = onLost || bucket?.expiresAfterItems ? load.watch() : undefined
  // Loaded beside the open; a failure is the watch's to report, once the open has succeeded.
  watching?.catch(() => {})
  // Loaded before the database is touched: a handle that slides a store owes touches from its first
  // read, and queues a mirrored store's writes from its first (SPEC §12b). Loading beside the
  // checks, awaited once they passed: a declaration they refuse is refused in its words either way.
  const needed = Promise.all([declaresAny(options, 'touchOnRead') ? load.touches() : undefined, declaresAny(options, 'mirror') ? load.mirror() : undefined])
  needed.catch(() => {})
  let touchWork: TouchWork | undefined
  let mirror: MirrorWork | undefined
  let lost: Promise<LostReport | undefined> | undefined
  const ready = async () => {
    const [touches, mirrored] = await needed
    touchWork = touches
    mirror = mirrored
  }
  const db = await openDatabase(name, withIdbViews(options), load, (opened) => {
    const parts = new Parts({ ...opened, background, reports: new PurgeReports(), notices: (name) => new Presence(name) }, touchWork, load.follow, load.stashWork)
    const routes = new Routes({ ...opened, parts }, load, mirror)
    routes.settingsChanged(opened.redeclared)
    lost = watching?.then((work) => work.watchStorage({ ...opened, parts, bucket, onLost }))
    return new TtlDB<S>(routes, opened.unfollow, load.calls)
  }, ready)
  try {
    return Object.assign(db, { lost: await lost })
  } catch (error) {
    // The open fails (the watch's chunk not loaded, say): the handle no one will hold closes.
    db.close()
    throw error
  }
}

/**
 * What holds the settings lock: imported, as the full entries' first loads hold Web Locks anyway (the
 * notices of changes, the expiry listeners), so that the lock is asked for as the open starts.
 */
const heldLocks = () => Promise.resolve({ holdLock })

/** What a full entry hands in: {@link Loaders} but the lock work, {@link FullLoads}, and the watch of a handle's storage (`handle/storage-watch.ts`), as the entry loads it. */
export interface FullLoaders extends Omit<Loaders, 'locks'>, FullLoads {
  relief: FullLoads['relief']
  watch: () => Promise<{ watchStorage: typeof watchStorage }>
  /** The touches of `touchOnRead` stores (`reads/touch.ts`), loaded by an open that declares one. */
  touches: () => Promise<TouchWork>
  /** The write observer of mirrored stores (`transaction/mirror-queue.ts`), loaded by an open that declares one. */
  mirror: () => Promise<MirrorWork>
  /** What runs a subscribed live query (`live/subscribers.ts`), loaded at a handle's first subscription. */
  follow: LiveSource['follow']
  /** What the handle's less common calls run (`calls.ts`), loaded at the first. */
  calls: LoadCalls
}

/** Whether `options` declare a store with `flag` set (options the open refuses are its to refuse). */
function declaresAny(options: unknown, flag: 'touchOnRead' | 'mirror'): boolean {
  const stores = (options as OpenTtlDBOptions | null | undefined)?.stores
  return stores !== null && typeof stores === 'object' && Object.values(stores).some((config) => (config as StoreConfig | null | undefined)?.[flag] === true)
}


/**
 * The options with the app's `upgrade` given idb's view of the native database, as idb's `openDB`
 * gives it (the same view `raw` gives later: idb keeps one per native object).
 */
function withIdbViews<S>(options: OpenTtlDBOptions<S>): OpenTtlCoreDBOptions<S> {
  // Options that are no object, or an upgrade that is no function, are `openDatabase`'s to refuse, as they are.
  const upgrade = (options as OpenTtlDBOptions<S> | null | undefined)?.upgrade
  if (typeof upgrade !== 'function') return options as OpenTtlCoreDBOptions<S>
  return {
    ...options,
    upgrade: (db, oldVersion, newVersion, tx) => {
      // idb's promise for the transaction (`done`) rejects when the upgrade aborts; the open reports why.
      wrap(tx).done.catch(() => {})
      // An async upgrade's promise is returned: its rejection aborts the upgrade and the open rejects with it.
      return upgrade(wrap(db) as IDBPDatabase<S>, oldVersion, newVersion)
    },
  }
}
