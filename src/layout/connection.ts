/**
 * One IndexedDB connection that steps aside for upgrades: it closes on `versionchange` (so
 * another tab's upgrade is never blocked) and reopens lazily on the next request.
 */
import { TtlError } from '../rules/errors.js'
import { explain, refuse, type LoadTexts } from '../rules/refusal.js'
import { factoryOf } from '../platform/factory.js'
import type { checkSchema, StoreConfigs } from './schema.js'
import type { applyDeclaredDefaults, openUpgrading } from './upgrade.js'

/**
 * The schema work of an open that creates or upgrades the database, and the words for its
 * failures (`upgrade.ts`); with it, what applies a declaration that changed (`redeclare.ts`).
 */
export interface UpgradeWork {
  openUpgrading: typeof openUpgrading
  applyDeclaredDefaults: typeof applyDeclaredDefaults
}

/**
 * The check of a database opened without an upgrade (`schema.ts`) with the words of its refusals,
 * and how to get the schema work of one that needs an upgrade (`upgrade.ts`: loaded with `import()` by the page entries, the first
 * time an open needs it), which `assembly/open.ts` gives. A connection without it never creates
 * nor upgrades one, nor checks it (the purge worker's, whose page checked the database it purges),
 * and its bundle carries none of it.
 */
export interface SchemaWork {
  checkSchema: typeof checkSchema
  upgrade: () => Promise<UpgradeWork>
  /** The words of the check's refusals (`rules/texts.ts`), loaded at the first. */
  texts: LoadTexts
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
  /** Runs when the connection steps aside for an upgrade or a deletion elsewhere, before it closes. */
  onStepAside?: () => void
}

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

/**
 * A connection that opens the database at whatever version exists and never creates nor upgrades
 * it: the purge worker's (`probed-connection.ts`), whose page opened (and checked) the database it
 * purges. The page's is a {@link Connection}, which the worker's bundle leaves out.
 */
export class AsIsConnection {
  protected current: IDBDatabase | undefined
  private opening: Promise<IDBDatabase> | undefined
  protected closed = false
  /** Set once an upgrade elsewhere made us step aside: reopen at whatever version exists then. */
  protected steppedAside = false
  /**
   * The IndexedDB of the last open, kept for as long as the connection: Chromium stalls every
   * transaction of a connection, for good and without an error, once the Storage Bucket it came
   * from is garbage collected, and a later open of the database in this realm places it anew.
   */
  protected factory?: IDBFactory

  constructor(protected readonly options: ConnectionOptions) {}

  /** The open native connection, opening or reopening it if needed. */
  native(): Promise<IDBDatabase> {
    if (this.closed) return Promise.reject(new TtlError('CLOSED', 'the database handle was closed'))
    if (this.current) return Promise.resolve(this.current)
    this.opening ??= this.open().finally(() => (this.opening = undefined))
    return this.opening
  }

  /** Opens at whatever version exists. */
  protected async open(): Promise<IDBDatabase> {
    return this.settle(await this.openAsIs())
  }

  /**
   * Opens without a version, as idb-keyval does, and never creates the database: an open that
   * would (there is none) is aborted, which leaves none, and rejects with its `AbortError`.
   */
  protected openAsIs(): Promise<IDBDatabase> {
    return new Promise((resolve, reject) => {
      const request = (this.factory = factoryOf(this.options.name)).open(this.options.name)
      request.onupgradeneeded = () => request.transaction!.abort()
      request.onsuccess = () => resolve(this.watch(request.result))
      request.onerror = () => reject(request.error)
    })
  }

  /** `db`, stepping aside when an upgrade or a deletion elsewhere needs it to. */
  protected watch(db: IDBDatabase): IDBDatabase {
    // Listeners, not `on` properties: the app may set those through `raw` without undoing these.
    db.addEventListener('versionchange', () => this.stepAside())
    db.addEventListener('close', () => this.stepAside())
    return db
  }

  /** `db` checked against the declaration and made the current connection, unless the handle closed meanwhile. */
  protected settle(db: IDBDatabase): IDBDatabase {
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
    return db
  }

  protected stepAside(): void {
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

/** The page's connection: it opens the database as declared, creating or upgrading it with the schema work. */
export class Connection extends AsIsConnection {
  /** Whether this connection's first open created the database (it did not exist). */
  created = false
  /** The schema work, once an open needed an upgrade. */
  private upgradeWork: UpgradeWork | undefined

  constructor(protected override readonly options: ConnectionOptions & { schema: SchemaWork }) {
    super(options)
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
  protected override open(): Promise<IDBDatabase> {
    // A refused check of the schema (`schema.ts`), at the first open or a reopen, gets its words before it rejects.
    return this.reach().catch((error: unknown) => explain(error, this.options.schema.texts))
  }

  private async reach(): Promise<IDBDatabase> {
    const { schema, version } = this.options
    if (this.steppedAside) {
      // An open without a version that needs an upgrade (aborted: AbortError) finds the database deleted.
      const db = await this.openAsIs().catch((error: unknown) => {
        if ((error as DOMException | null)?.name !== 'AbortError') throw error
      })
      if (db) return this.settle(db)
      this.steppedAside = false
    }
    if (!this.upgradeWork) {
      // A database at the declared version (at any, when none is declared) opens as it is, and is
      // checked without the schema work; any failure the open with the schema work meets again, and explains.
      const db = await this.openAsIs().catch(() => undefined)
      if (db && (version === undefined || db.version === version)) return this.settle(db)
      const newer = db !== undefined && version !== undefined && db.version > version
      db?.close()
      // Found newer (another app version upgraded it), the open fails with VersionError, explained
      // by the schema work where it loads, and as IndexedDB words it where it cannot.
      this.upgradeWork = await schema.upgrade().catch((error: unknown) => {
        if (newer) return undefined
        throw error
      })
      // Closed while it loaded: the database is not created again for a handle no one holds.
      if (this.closed) throw new TtlError('CLOSED', 'the database handle was closed')
      if (!this.upgradeWork) throw await refusedVersion(this.options.name, version!)
    }
    // The IndexedDB openUpgrading opens in, read in the same turn.
    this.factory = factoryOf(this.options.name)
    return this.settle(await this.upgradeWork.openUpgrading(this.options, (db) => this.watch(db), () => (this.created = true)))
  }
}

/** IndexedDB's own refusal of an open at `version`, below the database's: its `VersionError`. */
function refusedVersion(name: string, version: number): Promise<unknown> {
  return new Promise((resolve) => {
    const request = factoryOf(name).open(name, version)
    // Deleted or downgraded meanwhile: nothing is created nor upgraded without the schema work.
    request.onupgradeneeded = () => request.transaction!.abort()
    request.onsuccess = () => (request.result.close(), resolve(refuse('SCHEMA_MISMATCH', 'changed', name)))
    request.onerror = () => resolve(request.error)
  })
}
