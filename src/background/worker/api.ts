/**
 * The purge API, declared once for both sides: implemented by {@link createPurgeApi} (inside
 * the worker, or on the page in inline mode) and called through `Comlink.Remote<PurgeApi>`.
 * Errors cross the worker boundary as `{ name, message }`: identify them by `name`.
 */
import type { PurgeClock, SliceReport } from '../../purge/purge.js'
import type { StoreConfigs } from '../../layout/schema.js'

export type { SliceReport }

/**
 * What the worker posts to the page as soon as its script runs, before any Comlink call (Comlink
 * ignores it: it carries no id). An `error` before it means the script never ran: it could not
 * be loaded (a 404, a CSP that forbids it), which the page answers by purging inline.
 */
export const READY = 'idb-ttl:purge-worker-ready'

export interface PurgeConfig {
  /** Database name; the purger opens its own connection and never creates the database. */
  name: string
  stores: StoreConfigs
  batchSize: number
  sliceMs: number
  /** The Storage Bucket the database lives in, which the purger opens too; absent: the default one. */
  bucket?: string
}

export interface PurgeApi {
  /**
   * One bounded background slice over every TTL store of the database (all app versions), each
   * batch judged by `clock` when it runs (the page's clock, which a worker reads through the page).
   */
  slice(clock: PurgeClock): Promise<SliceReport[]>
  /**
   * Deletes everything dead at `nowMs` in `stores` (TTL off included: what is dead stays dead),
   * past its store's grace (`keepExpired`) unless `stale`.
   */
  purgeAll(stores: string[], nowMs: number, stale?: boolean): Promise<number>
  /** Closes the purger's connection. */
  close(): Promise<void>
}

/** What the worker exposes: the purge API, and a way to tell a busy worker from a dead one. */
export interface WorkerApi extends PurgeApi {
  /**
   * Answers at once while the worker is alive, whatever slice or purge it is running, with how
   * many of its transactions have committed so far: a slice or purge moves it at every batch.
   */
  ping(): Promise<number>
}
