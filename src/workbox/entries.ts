/**
 * One cache's entries (layout.ts): whether a response may be served, recording a response and its
 * uses, the order in which responses are given up (`maxEntries`, a full disk), and the purge inside
 * the strategy's events, which deletes expired entries and their responses from Cache Storage.
 * Every judgement is the SPEC's (rules/policy.ts, the cut-offs of the store's settings at `now`):
 * an entry is gone for reads from the instant it expires, whether or not the purge ran. With
 * `staleIfError` the purge leaves an expired entry (and its response) that long after its expiry,
 * for a strategy whose network failed (plugin.ts); no read serves it.
 */
import { allDeadRanges, EXPIRY_INDEX, MARK_FIELD } from '../layout/expiry-index.js'
import { nextDeath } from '../layout/next-death.js'
import { done, req } from '../platform/request.js'
import { cutoffs, isDeadMark, lowestLiveTs, markExpiryMs, markOf, type StoreState } from '../rules/policy.js'
import { TtlError } from '../rules/errors.js'
import { itemTtl } from '../rules/resolver.js'
import { stampOf } from '../rules/ttl.js'
import { databaseName, openEntries, STORE, type Entry } from './layout.js'
import type { Settings } from './options.js'
import type { StrategyEvent } from './types.js'
import type { WriteGuard } from './writes.js'

/**
 * Real ms one event's purge may take: a strategy's event is usually a fetch, which should not
 * keep the worker busy for long; what is left goes with the next event.
 */
const PURGE_BUDGET_MS = 1_000
/** Expired entries read per purge batch (of each kind: inheriting, own ttl), deleted in the same transaction. */
const BATCH = 100

interface Opened {
  db: IDBDatabase
  state: StoreState
}

/** Whether an entry with expiry mark `mark` is expired at `nowMs` under `state` (SPEC §2, §3). */
const expired = (state: StoreState, mark: number | undefined, nowMs: number) => isDeadMark(mark, cutoffs(state, nowMs))

/**
 * Stamps `entry` written (or, sliding, served) at `nowMs`: `_ts` and the expiry mark, never below
 * what earlier defaults left dead (SPEC §6: a write is never born dead).
 */
function stamp(entry: Entry, state: StoreState, nowMs: number): Entry {
  const ttl = itemTtl(entry.ttl, 'lenient')
  const ts = Math.max(stampOf(nowMs), lowestLiveTs(state, ttl))
  const mark = markOf(ttl, ts)
  const stamped = { ...entry, _ts: ts }
  if (mark === undefined) delete stamped[MARK_FIELD]
  else stamped[MARK_FIELD] = mark
  return stamped
}

export class CacheEntries {
  private connection: Promise<Opened> | undefined
  /** The largest clock value used: time never runs backwards here (SPEC §6). */
  private last = 0
  /** When the purge next finds an entry to delete, epoch ms by the clock (0: now). */
  private due = 0
  /** The purge under way, which an event that comes meanwhile waits for rather than start another. */
  private purging: Promise<void> | undefined

  private constructor(
    readonly cacheName: string,
    private readonly settings: Settings,
    private readonly guard: WriteGuard,
  ) {}

  /** Opens the entries of `cacheName`. */
  static async open(cacheName: string, settings: Settings, guard: WriteGuard): Promise<CacheEntries> {
    const entries = new CacheEntries(cacheName, settings, guard)
    await entries.opened()
    return entries
  }

  /**
   * Whether the response of `url` may be served now. Serving it records its use (`used`, where
   * the cache keeps an order of use, its `_ts` kept: a use never lengthens a life) or, sliding,
   * restarts its countdown, in the transaction that read it; `written` is that write, for the
   * event to wait for (the response need not).
   */
  async serve(url: string): Promise<{ live: boolean; written: Promise<unknown> }> {
    const { db, state } = await this.opened()
    const { sliding, ordered } = this.settings
    const tx = db.transaction(STORE, sliding || ordered ? 'readwrite' : 'readonly')
    const written = done(tx)
    written.catch(() => {})
    const store = tx.objectStore(STORE)
    const entry = await req<Entry | undefined>(store.get(url))
    const now = this.now()
    const live = entry !== undefined && !expired(state, entry[MARK_FIELD], now)
    if (live && (sliding || ordered)) {
      const used = ordered ? { ...entry, used: now } : entry
      store.put(sliding ? stamp(used, state, now) : used)
    }
    return { live, written }
  }

  /**
   * When the entry of `url` expired, if that was less than `staleIfError` ago (its response is
   * kept for a network that fails); `undefined` for a live entry, none, or one expired longer ago.
   */
  async staleSince(url: string): Promise<number | undefined> {
    const { db, state } = await this.opened()
    const mark = (await req<Entry | undefined>(db.transaction(STORE).objectStore(STORE).get(url)))?.[MARK_FIELD]
    const now = this.now()
    return expired(state, mark, now) && !expired(state, mark, now - this.settings.graceMs) ? markExpiryMs(state, mark) : undefined
  }

  /**
   * Records that the response of `url` was cached just now, living `ttl` seconds (`undefined`: the
   * default); with `ttl` 0 it is never served, and leaves the cache at once.
   * @throws TtlError `INVALID_TTL` naming the URL (nothing is written)
   */
  async record(url: string, ttl: number | undefined): Promise<void> {
    if (ttl === 0) return this.remove([url])
    try {
      itemTtl(ttl)
    } catch (error) {
      throw new TtlError('INVALID_TTL', `TtlExpirationPlugin, the response of ${url}: ${(error as Error).message}`)
    }
    await this.write(async (store, state) => {
      const now = this.now()
      const entry = stamp({ url, at: now, _ts: 0, ...(ttl !== undefined && { ttl }) }, state, now)
      store.put(entry)
      this.due = Math.min(this.due, markExpiryMs(state, entry[MARK_FIELD]) + this.settings.graceMs)
    })
  }

  /**
   * A cache past its `maxEntries` gives up responses now, as Workbox's does, rather than by the
   * purge's next slice: those kept expired first (`staleIfError`), then the least recently used;
   * a URL being written is left alone.
   */
  async trim(): Promise<void> {
    const { maxEntries } = this.settings
    if (maxEntries === undefined) return
    const { db, state } = await this.opened()
    const store = db.transaction(STORE).objectStore(STORE)
    const index = store.index(EXPIRY_INDEX)
    // The entries the purge leaves: all of them less those it deletes.
    const purgeable = allDeadRanges(cutoffs(state, this.now() - this.settings.graceMs)).map((range) => req(index.count(range)))
    const counts = await Promise.all([req(store.count()), ...purgeable])
    const surplus = counts.reduce((kept, n) => kept - n) - maxEntries
    if (surplus > 0) await this.guard.delete((await this.order()).slice(0, surplus), (urls) => this.remove(urls))
  }

  /**
   * The URLs of the entries the purge leaves, in the order they are given up: expired ones
   * (kept for `staleIfError`) first, then the live ones least recently used (served longest ago,
   * or cached longest ago when not served since: a response is used when it is cached).
   */
  async order(): Promise<string[]> {
    const { db, state } = await this.opened()
    const rows = await req<Entry[]>(db.transaction(STORE).objectStore(STORE).getAll())
    const now = this.now()
    // Expired ones a lifetime of epoch ms before every live one.
    const rank = (row: Entry) => (row.used ?? row.at) - (expired(state, row[MARK_FIELD], now) ? 1e15 : 0)
    return rows
      .filter((row) => !expired(state, row[MARK_FIELD], now - this.settings.graceMs))
      .sort((a, b) => rank(a) - rank(b))
      .map((row) => row.url)
  }

  /**
   * Purges inside `event` (bounded slices) when an entry is due, and keeps the event alive until
   * the responses of the entries purged have left the cache too, and `work` is done.
   */
  purgeDuring(event: StrategyEvent | undefined, work?: Promise<unknown>): void {
    if (!event) return
    const purged = this.now() < this.due ? undefined : (this.purging ??= this.purge(this.settings.graceMs, PURGE_BUDGET_MS).finally(() => (this.purging = undefined)))
    try {
      // A purge that failed (the database deleted meanwhile) leaves its work to the next event.
      event.waitUntil(Promise.all([purged?.catch(() => {}), work]))
    } catch {
      // The event can no longer be extended: the deletions go on while the worker lives.
    }
  }

  /**
   * Deletes the entries expired more than `graceMs` ago, a batch at a time, until none is left or
   * `budgetMs` (real time) has passed, and resolves once their responses have left the cache too
   * (those deletions go on beside the next batches, out of the budget); the purge of the events
   * (`graceMs` the settings') notes when the next one is due.
   */
  async purge(graceMs: number, budgetMs = Infinity): Promise<void> {
    const scheduled = graceMs === this.settings.graceMs
    const end = performance.now() + budgetMs
    const deleting: Promise<void>[] = []
    // What is recorded meanwhile lowers it again.
    if (scheduled) this.due = Infinity
    try {
      for (;;) {
        // A batch is read and deleted in one transaction: what it deletes is expired in it.
        const { db, state } = await this.opened()
        const tx = db.transaction(STORE, 'readwrite')
        const committed = done(tx)
        committed.catch(() => {})
        const store = tx.objectStore(STORE)
        const index = store.index(EXPIRY_INDEX)
        const cut = cutoffs(state, this.now() - graceMs)
        const urls = (await Promise.all(allDeadRanges(cut).map((range) => req(index.getAllKeys(range, BATCH))))).flat() as string[]
        if (urls.length === 0) {
          const next = await nextDeath(index, state, cut)
          if (scheduled) this.due = Math.min(this.due, next + graceMs)
          break
        }
        let freed = 0
        // The guard runs the deletion at once, in the transaction; the responses go once it committed.
        const deletion = this.guard.delete(urls, (free) => {
          freed = free.length
          for (const url of free) store.delete(url)
          return committed.then(() => this.deleteResponses(free))
        })
        deletion.catch(() => {})
        deleting.push(deletion)
        await committed
        // URLs being written (their entries replaced by the write), or the budget spent: the next event goes on.
        if (freed === 0 || performance.now() >= end) {
          if (scheduled) this.due = 0
          break
        }
      }
    } catch (error) {
      if (scheduled) this.due = 0
      throw error
    } finally {
      await Promise.all(deleting)
    }
  }

  /**
   * Deletes the responses of `urls` from the cache, then their entries: a response whose entry is
   * left (the worker ended in between, the disk failing) is gone all the same.
   */
  async remove(urls: readonly string[]): Promise<void> {
    await this.deleteResponses(urls)
    await this.write((store) => urls.forEach((url) => store.delete(url)))
  }

  /** Deletes the cache, closes and deletes the database. */
  async destroy(): Promise<void> {
    await caches.delete(this.cacheName)
    const opened = this.connection
    this.connection = undefined
    ;(await opened?.catch(() => undefined))?.db.close()
    await req(indexedDB.deleteDatabase(databaseName(this.cacheName)))
  }

  /**
   * The open database and its settings, opened anew after it closed (for an upgrade or a
   * deletion elsewhere: a newer worker's plugin, `deleteCacheAndMetadata`).
   */
  private opened(): Promise<Opened> {
    return (this.connection ??= openEntries(this.cacheName, this.settings.lifetime, this.now()).then(
      (opened) => {
        // Its settings may differ from those the purge knew (a newer worker's plugin changed them).
        this.due = 0
        opened.db.onversionchange = opened.db.onclose = () => {
          opened.db.close()
          this.connection = undefined
        }
        return opened
      },
      (error: unknown) => {
        this.connection = undefined
        throw error
      },
    ))
  }

  /** Runs `work` in a read-write transaction of the entries; resolves once it committed. */
  private async write(work: (store: IDBObjectStore, state: StoreState) => unknown): Promise<void> {
    const { db, state } = await this.opened()
    const tx = db.transaction(STORE, 'readwrite')
    const committed = done(tx)
    committed.catch(() => {})
    await work(tx.objectStore(STORE), state)
    await committed
  }

  private now(): number {
    return (this.last = Math.max(this.last, (this.settings.clock ?? Date.now)()))
  }

  private async deleteResponses(urls: readonly string[]): Promise<void> {
    if (urls.length === 0) return
    const cache = await caches.open(this.cacheName)
    await Promise.all(urls.map((url) => cache.delete(url, this.settings.matchOptions)))
  }
}
