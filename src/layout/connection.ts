/**
 * One IndexedDB connection that steps aside for upgrades: it closes on `versionchange` (so
 * another tab's upgrade is never blocked) and reopens lazily on the next request.
 */
import { TtlError } from '../rules/errors.js'
import { factoryOf } from '../platform/factory.js'
import { abortQuietly } from '../platform/request.js'
import type { checkSchema, StoreConfigs } from './schema.js'
import type { addedUniqueIndexes, explainAbort, upgradeSchema } from './upgrade.js'

/** The schema work of an open that creates or upgrades the database, and the words for its failures (`upgrade.ts`). */
export interface UpgradeWork {
  addedUniqueIndexes: typeof addedUniqueIndexes
  upgradeSchema: typeof upgradeSchema
  explainAbort: typeof explainAbort
}

/**
 * The check of a database opened without an upgrade (`schema.ts`), and how to get the schema work
 * of one that needs an upgrade (`upgrade.ts`: loaded with `import()` by the page entries, the first
 * time an open needs it), which `assembly/open.ts` gives. A connection without it never creates
 * nor upgrades one, nor checks it (the purge worker's, whose page checked the database it purges),
 * and its bundle carries none of it.
 */
export interface SchemaWork {
  checkSchema: typeof checkSchema
  upgrade: () => Promise<UpgradeWork>
}

export interface ConnectionOptions {
  name: string
  version?: number
  stores: StoreConfigs
  clock: () => number
  /**
   * The app's `upgrade`, run in the upgrade transaction once the schema work is done. It is given
   * the native database and transaction, as `idb-ttl/core` hands them to the app; the full entries
   * make idb's views of them (`assembly/open-full.ts`), so this module, the core and the purge worker carry
   * no idb.
   */
  upgrade?: (db: IDBDatabase, oldVersion: number, newVersion: number | null, tx: IDBTransaction) => void
  /** Absent for connections that must never create or upgrade the database (the purge worker's). */
  schema?: SchemaWork
  /** `true` for a connection in a worker: each open is checked by a probe (see {@link PROBE_MS}). */
  probe?: boolean
  /** Runs when the connection steps aside for an upgrade or a deletion elsewhere, before it closes. */
  onStepAside?: () => void
}

/**
 * WebKit loses the `versionchange` meant for a worker's connection when it comes in the moment
 * between the database opening that connection and the worker seeing it open (WebKitGTK 2.50,
 * a reopen right behind one upgrade, with a second upgrade queued): that upgrade or deletion
 * then waits for the connection, with no `blocked` event, until it closes. So once a worker's
 * connection is open, a second open request (the probe) queues behind whatever is waiting; one
 * still pending after this long waits behind an upgrade or a deletion, and the connection steps
 * aside for it. A false alarm (a slow open) costs a reopen.
 */
const PROBE_MS = 250

/** Connections closed by their handle's `close()` (not stepped aside for an upgrade elsewhere). */
const closedByHandle = new WeakSet<IDBDatabase>()

/**
 * `error` as a caller of a handle should see it: IndexedDB's `InvalidStateError` from a
 * connection that its handle's `close()` closed while the call was under way (a write that
 * stashed its values first, say) is TtlError `CLOSED`, as for any call after `close()`.
 */
export function asClosed(db: IDBDatabase, error: unknown): unknown {
  if ((error as DOMException | null)?.name !== 'InvalidStateError' || !closedByHandle.has(db)) return error
  return new TtlError('CLOSED', 'the database handle was closed')
}

export class Connection {
  private current: IDBDatabase | undefined
  private opening: Promise<IDBDatabase> | undefined
  private closed = false
  /** Set once an upgrade elsewhere made us step aside: reopen at whatever version exists then. */
  private steppedAside = false
  /** Whether this connection's first open created the database (it did not exist). */
  created = false
  /** The schema work, once an open needed an upgrade (see {@link openAsDeclared}). */
  private upgradeWork: UpgradeWork | undefined
  /** The open without a version found the database at a higher version than declared. */
  private newerOnDisk = false

  constructor(private readonly options: ConnectionOptions) {}

  /** The open native connection, opening or reopening it if needed. */
  native(): Promise<IDBDatabase> {
    if (this.closed) return Promise.reject(new TtlError('CLOSED', 'the database handle was closed'))
    if (this.current) return Promise.resolve(this.current)
    this.opening ??= this.open().finally(() => (this.opening = undefined))
    return this.opening
  }

  /** The native connection when it is open now (no reopening needed). */
  get openNow(): IDBDatabase | undefined {
    return this.closed ? undefined : this.current
  }

  /** The latest connection, for the handle's physical view (`raw`), which wraps it with idb. */
  get latest(): IDBDatabase {
    if (this.closed) throw new TtlError('CLOSED', 'the database handle was closed')
    if (!this.current) throw new TtlError('CLOSED', 'the database is not open (reopening after an upgrade elsewhere)')
    return this.current
  }

  /**
   * Opens at the declared version first, at whatever version exists after an upgrade elsewhere,
   * and at the declared version again after another tab deleted the database: recreated as this
   * app declares it (as a reload would), never at version 1 with `upgrade(0, 1)`.
   */
  private async open(): Promise<IDBDatabase> {
    const { name, stores, clock, upgrade, schema } = this.options
    if (schema && !this.steppedAside && !this.upgradeWork) {
      const asDeclared = await this.openAsDeclared()
      if (asDeclared) return this.settle(asDeclared)
      // Found newer (another app version upgraded it), the open fails with VersionError, explained
      // by the schema work where it loads, and as IndexedDB words it where it cannot.
      this.upgradeWork = await schema.upgrade().catch((error: unknown) => {
        if (this.newerOnDisk) return undefined
        throw error
      })
      // Closed while it loaded: the database is not created again for a handle no one holds.
      if (this.closed) throw new TtlError('CLOSED', 'the database handle was closed')
    }
    const work = this.upgradeWork
    const reopening = this.steppedAside
    const version = reopening ? undefined : this.options.version
    let failure: { error: unknown } | undefined
    let versionchange: IDBTransaction | undefined
    let unique: string[] = []
    let deleted = false
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = factoryOf(name).open(name, version)
      request.onupgradeneeded = (event) => {
        const raw = request.result
        const tx = request.transaction!
        deleted = reopening && event.oldVersion === 0
        // Reopening at whatever version exists, an upgrade means the database was deleted.
        if (!schema || !work || deleted) return tx.abort()
        this.created ||= event.oldVersion === 0
        versionchange = tx
        unique = work.addedUniqueIndexes(raw, tx, stores)
        // The app's callback runs once the library's schema work (a chain of requests) is done.
        work.upgradeSchema(raw, tx, stores, clock())
          .then(() => upgrade?.(raw, event.oldVersion, event.newVersion, tx))
          .catch((error: unknown) => {
            failure = { error }
            abortQuietly(tx)
          })
      }
      request.onsuccess = () => resolve(this.watch(request.result))
      request.onerror = () => reject(request.error)
    }).catch((error: unknown) => {
      if (deleted && schema) return undefined
      // Without schema work, no version is asked for and no upgrade runs: nothing to explain.
      throw work ? work.explainAbort(failure?.error ?? error, versionchange, unique, name, version) : error
    })
    if (!db) {
      this.steppedAside = false
      return this.open()
    }
    return this.settle(db)
  }

  /**
   * Opens without a version, as idb-keyval does: a database at the declared version (at any, when
   * none is declared) opens as it is, and is checked without the schema work. Resolves to nothing
   * when the open needs an upgrade, or failed: no database yet (the creation this open began is
   * aborted, which leaves none), another version, an error (which the open with the schema work
   * meets again, and explains).
   */
  private openAsDeclared(): Promise<IDBDatabase | undefined> {
    return new Promise((resolve) => {
      const request = factoryOf(this.options.name).open(this.options.name)
      request.onupgradeneeded = () => request.transaction!.abort()
      request.onsuccess = () => {
        const db = request.result
        if (this.options.version === undefined || db.version === this.options.version) return resolve(this.watch(db))
        this.newerOnDisk = db.version > this.options.version
        db.close()
        resolve(undefined)
      }
      request.onerror = () => resolve(undefined)
    })
  }

  /** `db`, stepping aside when an upgrade or a deletion elsewhere needs it to. */
  private watch(db: IDBDatabase): IDBDatabase {
    // Listeners, not `on` properties: the app may set those through `raw` without undoing these.
    db.addEventListener('versionchange', () => this.stepAside())
    db.addEventListener('close', () => this.stepAside())
    return db
  }

  /** `db` checked against the declaration and made the current connection, unless the handle closed meanwhile. */
  private settle(db: IDBDatabase): IDBDatabase {
    const { stores, schema } = this.options
    try {
      schema?.checkSchema(db, stores)
    } catch (error) {
      db.close()
      throw error
    }
    if (this.closed) {
      db.close()
      throw new TtlError('CLOSED', 'the database handle was closed')
    }
    this.current = db
    if (this.options.probe) this.probe(db)
    return db
  }

  /** See {@link PROBE_MS}. The probe never creates the database, and closes as soon as it opens. */
  private probe(db: IDBDatabase): void {
    const request = factoryOf(this.options.name).open(this.options.name)
    const timer = setTimeout(() => this.current === db && !this.closed && this.stepAside(), PROBE_MS)
    request.onupgradeneeded = () => request.transaction!.abort()
    request.onsuccess = () => (clearTimeout(timer), request.result.close())
    request.onerror = () => clearTimeout(timer)
  }

  private stepAside(): void {
    this.options.onStepAside?.()
    this.current?.close()
    this.current = undefined
    this.steppedAside = true
  }

  close(): void {
    this.closed = true
    if (this.current) closedByHandle.add(this.current)
    this.current?.close()
  }
}
