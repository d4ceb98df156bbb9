/**
 * One cache's entries: the idb-ttl database `idb-ttl-workbox:<cache name>`, store `entries`, an
 * item `{ url, at, ttl? }` per cached request (`at`: when it was cached, in epoch ms). A response
 * is served only while its entry is live; when the purge deletes an entry (expired, or evicted by
 * `maxEntries`), `onExpire` hears it and the response leaves Cache Storage, inside the event that
 * ran the purge.
 */
import { deleteTtlDB, openTtlDB, type TtlDB } from '../service-worker.js'
import type { Settings } from './options.js'
import type { StrategyEvent } from './types.js'
import type { WriteGuard } from './writes.js'

/** The store of each cache's database. */
export const STORE = 'entries'

/**
 * Real ms one event's purge may take: a strategy's event is usually a fetch, which should not
 * keep the worker busy for long; what is left goes with the next event.
 */
const PURGE_BUDGET_MS = 1_000

/** The database that keeps the entries of cache `cacheName`. */
export const databaseName = (cacheName: string) => `idb-ttl-workbox:${cacheName}`

export class CacheEntries {
  /** Deletions of responses started by `onExpire` and not yet done. */
  private readonly deleting = new Set<Promise<unknown>>()

  private constructor(
    readonly cacheName: string,
    readonly db: TtlDB<any>,
    private readonly settings: Settings,
    private readonly guard: WriteGuard,
  ) {
    db.onExpire(({ items }) => this.track(this.dropResponses(items.map((item) => item.key as string))))
  }

  /**
   * Opens the entries of `cacheName` as `settings` declare them. A cap declared for a cache whose
   * database predates it needs an index the database lacks: it is opened one version up.
   */
  static async open(cacheName: string, settings: Settings, guard: WriteGuard): Promise<CacheEntries> {
    const name = databaseName(cacheName)
    const options = { stores: { [STORE]: settings.store }, ...(settings.clock && { clock: settings.clock }) }
    let db: TtlDB<any>
    try {
      db = await openTtlDB(name, options)
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SCHEMA_MISMATCH') throw error
      db = await openTtlDB(name, { ...options, version: (await versionOf(name)) + 1 })
    }
    return new CacheEntries(cacheName, db, settings, guard)
  }

  /** Whether the entry of `url` is live: reading it restarts its countdown in a sliding store. */
  async isLive(url: string): Promise<boolean> {
    return (await this.db.get(STORE, url)) !== undefined
  }

  /**
   * Records that the response of `url` was cached just now, living `ttl` seconds (`undefined`: the
   * default); with `ttl` 0 it is never served, and leaves the cache at once. A cache past its
   * `maxEntries` is trimmed now, as Workbox's is, rather than by the purge's next slice.
   */
  async record(url: string, ttl: number | undefined): Promise<void> {
    if (ttl !== 0) {
      const at = (this.settings.clock ?? Date.now)()
      await this.db.put(STORE, ttl === undefined ? { url, at } : { url, at, ttl })
      const { maxEntries } = this.settings.store
      if (maxEntries !== undefined && (await this.db.count(STORE)) > maxEntries) await this.db.purgeExpired(STORE)
      return
    }
    await this.db.delete(STORE, url)
    await this.deleteResponses([url])
  }

  /**
   * Purges inside `event` (bounded slices) and keeps it alive until the responses of the entries
   * purged have left the cache too.
   */
  purgeDuring(event: StrategyEvent | undefined): void {
    if (!event) return
    // An event that can no longer be kept alive purges nothing (TtlError INVALID_OPTION): the
    // next event purges. A purge's own failures reach onPurge.
    const purged = this.db.purgeDuring(event, PURGE_BUDGET_MS).catch(() => {})
    try {
      event.waitUntil(purged.then(() => this.settled()))
    } catch {
      // The event can no longer be extended: the deletions go on while the worker lives.
    }
  }

  /** Resolves once every deletion `onExpire` has started, or starts meanwhile, is done. */
  async settled(): Promise<void> {
    // Expiry events reach this realm's listeners a task after the purge posted them.
    await new Promise((resolve) => setTimeout(resolve, 0))
    while (this.deleting.size > 0) await Promise.allSettled([...this.deleting])
  }

  /** Deletes the responses of `urls` from the cache, and their entries. */
  async remove(urls: readonly string[]): Promise<void> {
    await Promise.all(urls.map((url) => this.db.delete(STORE, url)))
    await this.deleteResponses(urls)
  }

  /** Deletes the cache, closes and deletes the database. */
  async destroy(): Promise<void> {
    await caches.delete(this.cacheName)
    this.db.close()
    await deleteTtlDB(databaseName(this.cacheName))
  }

  private track(deletion: Promise<unknown>): void {
    this.deleting.add(deletion)
    void deletion.finally(() => this.deleting.delete(deletion)).catch(() => {})
  }

  /**
   * The responses of purged entries leave the cache, unless the URL is being cached again, or was
   * since (its entry is live again): that response is new.
   */
  private dropResponses(urls: readonly string[]): Promise<void> {
    return this.guard.delete(urls, async (free) => {
      const replaced = await Promise.all(free.map((url) => this.db.expiresAt(STORE, url)))
      await this.deleteResponses(free.filter((_, i) => replaced[i] === undefined))
    })
  }

  private async deleteResponses(urls: readonly string[]): Promise<void> {
    if (urls.length === 0) return
    const cache = await caches.open(this.cacheName)
    await Promise.all(urls.map((url) => cache.delete(url, this.settings.matchOptions)))
  }
}

/** The version of database `name` on disk. */
function versionOf(name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(name)
    request.onsuccess = () => {
      request.result.close()
      resolve(request.result.version)
    }
    request.onerror = () => reject(request.error)
  })
}
