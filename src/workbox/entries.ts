/**
 * One cache's entries: the idb-ttl database `idb-ttl-workbox:<cache name>`, store `entries`, an
 * item `{ url, at, used?, ttl? }` per cached request (`at`: when it was cached, `used`: when it
 * was last served, in epoch ms, where the cache keeps an order of use). A response is served only
 * while its entry is live; when the purge deletes an entry (expired), `onExpire` hears it and the
 * response leaves Cache Storage, inside the event that ran the purge. `maxEntries` is the
 * plugin's own, least recently used first, as Workbox's: the store's capacity would evict by
 * `_ts`, which only sliding expiry moves.
 */
import { deleteTtlDB, openTtlDB, type TtlDB } from '../service-worker.js'
import type { Settings } from './options.js'
import type { StrategyEvent } from './types.js'
import type { WriteGuard } from './writes.js'

/** The store of each cache's database. */
export const STORE = 'entries'

/** An entry as stored. */
interface Entry {
  url: string
  at: number
  used?: number
  ttl?: number
}

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

  /** Opens the entries of `cacheName` as `settings` declare them. */
  static async open(cacheName: string, settings: Settings, guard: WriteGuard): Promise<CacheEntries> {
    const db = await openTtlDB(databaseName(cacheName), { stores: { [STORE]: settings.store }, ...(settings.clock && { clock: settings.clock }) })
    return new CacheEntries(cacheName, db, settings, guard)
  }

  /** Whether the entry of `url` is live: reading it restarts its countdown in a sliding store. */
  async isLive(url: string): Promise<boolean> {
    return (await this.db.get(STORE, url)) !== undefined
  }

  /**
   * Records that the response of `url` was served just now, where the cache keeps an order of use
   * (`maxEntries`, `evictOnQuota`: its store is `keepTs`): its entry's `used`, in one transaction
   * with the read of the entry, its `_ts` kept, so that a use never lengthens its life.
   */
  async use(url: string): Promise<void> {
    if (!this.settings.store.keepTs) return
    await this.db.transaction(STORE, 'readwrite', async (tx) => {
      const entry = await tx.get(STORE, url)
      if (entry) await tx.put(STORE, { ...entry, used: this.now() })
    })
  }

  /**
   * Records that the response of `url` was cached just now, living `ttl` seconds (`undefined`: the
   * default); with `ttl` 0 it is never served, and leaves the cache at once.
   */
  async record(url: string, ttl: number | undefined): Promise<void> {
    if (ttl === 0) return this.remove([url])
    // A `ttl` left undefined inherits the default, as an absent one does.
    await this.db.put(STORE, { url, at: this.now(), ttl } satisfies Entry)
  }

  /**
   * A cache past its `maxEntries` gives up its least recently used responses now, as Workbox's
   * does, rather than by the purge's next slice; a URL being written is left alone.
   */
  async trim(): Promise<void> {
    const { maxEntries } = this.settings
    const surplus = maxEntries === undefined ? 0 : (await this.db.count(STORE)) - maxEntries
    if (surplus > 0) await this.guard.delete(await this.leastUsed(surplus), (urls) => this.remove(urls))
  }

  /**
   * The `n` live entries least recently used: served longest ago, or cached longest ago when not
   * served since (a response is used when it is cached).
   */
  async leastUsed(n: number): Promise<string[]> {
    // getAllKeys reads the live keys without touching them; the rows give each its order.
    const live = new Set(await this.db.getAllKeys(STORE))
    const rows = ((await this.db.raw.getAll(STORE)) as Entry[]).filter((row) => live.has(row.url))
    // A response cached anew has no `used` (the entry is written whole): its use is its caching.
    const lastUse = (row: Entry) => row.used ?? row.at
    return rows.sort((a, b) => lastUse(a) - lastUse(b)).slice(0, n).map((row) => row.url)
  }

  /**
   * Purges inside `event` (bounded slices) and keeps it alive until the responses of the entries
   * purged have left the cache too, and `work` is done.
   */
  purgeDuring(event: StrategyEvent | undefined, work?: Promise<unknown>): void {
    if (!event) return
    // An event that can no longer be kept alive purges nothing (TtlError INVALID_OPTION): the
    // next event purges. A purge's own failures reach onPurge.
    const purged = this.db.purgeDuring(event, PURGE_BUDGET_MS).catch(() => {})
    try {
      event.waitUntil(Promise.all([purged.then(() => this.settled()), work]))
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

  /**
   * Deletes the responses of `urls` from the cache, then their entries: a response whose entry is
   * left (the worker ended in between, the disk failing) is gone all the same.
   */
  async remove(urls: readonly string[]): Promise<void> {
    await this.deleteResponses(urls)
    await Promise.all(urls.map((url) => this.db.delete(STORE, url)))
  }

  /** Deletes the cache, closes and deletes the database. */
  async destroy(): Promise<void> {
    await caches.delete(this.cacheName)
    this.db.close()
    await deleteTtlDB(databaseName(this.cacheName))
  }

  private now(): number {
    return (this.settings.clock ?? Date.now)()
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
