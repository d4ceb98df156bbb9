/**
 * An independent model of SPEC §1–4, §6, §7 (keepTs, touchOnRead) and §9 (maxEntries) for the
 * multi-store property test. Written from the SPEC and the clock rules alone: it shares no code
 * with src/ttl.ts, src/policy.ts, src/capacity.ts or src/eviction.ts (it imports nothing from
 * src/).
 *
 * The model keeps what is physically on disk (every stored value, dead or alive), the settings
 * each store shares between connections (the default in force, the last declared one, and the
 * two watermarks of SPEC §3), and judges liveness as a pure function of a stored value, those
 * shared settings and the reading connection's `now`:
 *
 * - an inheriting item (ttl absent/null, or invalid in lenient mode) is dead when
 *   `_ts <= deadTs`, or when the default is n > 0 and `now >= _ts + n`;
 * - an item with its own ttl m is dead when `_ts + m <= deadExpiry`, or when TTL is on
 *   (default not null) and `now >= _ts + m`;
 * - an item with ttl -1 is never dead.
 *
 * A change of default at `now` (seconds, fractional) with old default d raises `deadTs` to
 * `now - d` (when d > 0) and `deadExpiry` to `now` (when d is not null). A write at `now` stamps
 * `_ts = max(floor(now), the lowest whole second that keeps it above the watermarks)` (SPEC §6:
 * never born dead).
 *
 * A sliding store (SPEC §7 `touchOnRead`) touches what a read returns: each returned live item
 * (one that never expires under the settings in force too: a later default counts from the read)
 * gets `_ts = max(_ts, floor(now))` at the reading connection's `now`, at once and for every
 * connection (the model does not know when the library
 * writes a touch to disk; `lastWrittenTs` says how far back the disk may lag). Everything else —
 * liveness, purges, changes of default and their watermarks, `expiresAt` — judges the touched
 * value.
 *
 * A capped store (SPEC §9 `maxEntries: n`, `evict`) ranks its live items for eviction (`evictRank`):
 * `'oldest'` by `_ts`, then, among the items of one second, by when each was last written (a
 * touch of a sliding store is a write at the read: the model's disk numbers every value set in
 * it, `Disk`); `'soonest'` by expiry under the settings in force (`_ts + life`, seconds), items
 * that never expire after every item that will, by `_ts` and write among themselves. Items of
 * equal rank (the same expiry: the SPEC orders them no further, and the library breaks those ties
 * by the random fraction of its expiry marks) are tied, so any of them may go first. Writes never
 * evict; reads may see more than n. A purge at `now` may evict a set E of the items live at `now`
 * when (`evictionFault`):
 *
 * - E holds no more than the surplus (live items beyond n): a purge never evicts below the cap;
 * - nothing kept outranks anything evicted: rank(e) <= rank(x) for every e in E and every live x
 *   not in E (E is the first |E| items of the order, any choice among the tied ones at its edge);
 * - a purge that finished (`purgeExpired`, or a slice reporting `more: false`) evicted the whole
 *   surplus: at most n live items remain. A slice that stopped early (`more: true`) may have
 *   evicted only a prefix of the surplus, or none of it.
 *
 * A store with a grace (SPEC §15 `keepExpired: g`) keeps a dead item on disk until `g` seconds
 * after it expired (`expiredAt`: its expiry under the settings in force, or the instant of the last
 * change of default when that change killed it or kept it dead, as docs/stale.md says); no purge
 * may delete it before, and the stale reads return exactly those items. Such a store is never the
 * capped one here.
 */

export const MAX_TTL = 2147483647

export type DefaultTtl = number | null
export type Mode = 'strict' | 'lenient'
export type StoreName = 's' | 't'
export const STORES: readonly StoreName[] = ['s', 't']
/** Primary keys (strings, ordered as IndexedDB orders them: these are plain ASCII). */
export const KEYS = ['a', 'b', 'c', 'd', 'e', 'f'] as const
/** Values of the non-unique index `byG` (field `g`). */
export const G_VALUES = [1, 2, 3] as const
/** Values of the unique index `byU` (field `u`). */
export const U_VALUES = ['x', 'y', 'z'] as const

/** A stored value as reads return it: the user's fields plus `_ts`. */
export type Rec = Record<string, unknown> & { id: string; _ts: number }

/** How an item's `ttl` field resolves: inherit, never (-1), own seconds, or invalid (strict only). */
export type TtlClass = { kind: 'inherit' } | { kind: 'never' } | { kind: 'own'; seconds: number } | { kind: 'invalid' }

export function classify(ttl: unknown, mode: Mode): TtlClass {
  if (ttl === undefined || ttl === null) return { kind: 'inherit' }
  let n: number | undefined
  if (typeof ttl === 'number' && Number.isInteger(ttl)) n = ttl
  else if (typeof ttl === 'bigint' && mode === 'lenient' && ttl >= -1n && ttl <= BigInt(MAX_TTL)) n = Number(ttl)
  if (n === -1) return { kind: 'never' }
  if (n !== undefined && n >= 1 && n <= MAX_TTL) return { kind: 'own', seconds: n }
  return mode === 'lenient' ? { kind: 'inherit' } : { kind: 'invalid' }
}

/** A `_ts` a keepTs store keeps: whole epoch seconds, not negative. */
export function isWholeSeconds(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0
}

export function isValidDefault(value: unknown): value is DefaultTtl {
  return value === null || (typeof value === 'number' && Number.isInteger(value) && (value === -1 || (value >= 1 && value <= MAX_TTL)))
}

// ---------------------------------------------------------------- key ranges, as descriptions

/** A query as data (printable in counterexamples), turned into a key or IDBKeyRange at use. */
export type RangeDesc<V extends string | number = string | number> =
  | { k: 'all' }
  | { k: 'key'; v: V }
  | { k: 'only'; v: V }
  | { k: 'lower'; v: V; open: boolean }
  | { k: 'upper'; v: V; open: boolean }
  | { k: 'bound'; lo: V; hi: V; loOpen: boolean; hiOpen: boolean }

export function toQuery(desc: RangeDesc): IDBValidKey | IDBKeyRange | undefined {
  switch (desc.k) {
    case 'all':
      return undefined
    case 'key':
      return desc.v
    case 'only':
      return IDBKeyRange.only(desc.v)
    case 'lower':
      return IDBKeyRange.lowerBound(desc.v, desc.open)
    case 'upper':
      return IDBKeyRange.upperBound(desc.v, desc.open)
    case 'bound':
      return IDBKeyRange.bound(desc.lo, desc.hi, desc.loOpen, desc.hiOpen)
  }
}

export function inRange(desc: RangeDesc, x: string | number): boolean {
  switch (desc.k) {
    case 'all':
      return true
    case 'key':
    case 'only':
      return x === desc.v
    case 'lower':
      return desc.open ? x > desc.v : x >= desc.v
    case 'upper':
      return desc.open ? x < desc.v : x <= desc.v
    case 'bound':
      return (desc.loOpen ? x > desc.lo : x >= desc.lo) && (desc.hiOpen ? x < desc.hi : x <= desc.hi)
  }
}

// ---------------------------------------------------------------- the stores

export type EvictOrder = 'oldest' | 'soonest'
/** SPEC §9: a store's cap. */
export interface Cap {
  maxEntries: number
  evict: EvictOrder
}

/** Every value the models store, numbered as it is set: the order of writes (and touches). */
let written = 0

/** What is physically on disk: key → stored value, each value numbered when it was set. */
class Disk extends Map<string, Rec> {
  private readonly order = new WeakMap<Rec, number>()

  override set(id: string, rec: Rec): this {
    if (!this.order.has(rec)) this.order.set(rec, written++)
    return super.set(id, rec)
  }

  /** When `rec` was written, relative to every other value: a larger number is a later write. */
  writeOrder(rec: Rec): number {
    return this.order.get(rec) ?? -Infinity
  }
}

export class StoreModel {
  /** The default in force (shared by every connection). */
  d: DefaultTtl
  /** Inheriting items with `_ts <=` this are dead for good (seconds). */
  deadTs = -Infinity
  /** Items with their own ttl whose expiry `_ts + ttl <=` this are dead for good (seconds). */
  deadExpiry = -Infinity
  /** The default last declared in `openTtlDB`. */
  declared: DefaultTtl
  /** Physically on disk: key → stored value. */
  readonly disk = new Disk()

  constructor(
    readonly name: StoreName,
    declared: DefaultTtl,
    private readonly mode: Mode,
    /** SPEC §7: a written value's own `_ts` of whole epoch seconds is kept. */
    readonly keepTs = false,
    /** SPEC §7 `touchOnRead`: a read that returns a live item restarts its countdown. */
    readonly slides = false,
    /** SPEC §9 `maxEntries` and `evict`; fixed for the store's life (changing it needs a version bump). */
    readonly cap?: Cap,
    /** SPEC §15 `keepExpired` (seconds): dead items stay on disk that long for the stale reads alone. */
    readonly grace?: number,
  ) {
    this.d = declared
    this.declared = declared
  }

  /** For a touched value: the `_ts` its last write gave it (what the disk may still show). */
  private readonly writtenTsOf = new WeakMap<Rec, number>()

  /** The `_ts` the value `rec` had when it was last written (before any touch). */
  lastWrittenTs(rec: Rec): number {
    return this.writtenTsOf.get(rec) ?? rec._ts
  }

  /**
   * What a read at `nowMs` that returns the live values `recs` returns (SPEC §7, README
   * "Lifetimes"): on a sliding store each value is touched — its `_ts` becomes
   * `max(_ts, floor(now))` — and the model's value becomes the touched one; values that never
   * expire under the settings in force too, so that a later default counts from the read.
   * Elsewhere the values as they are.
   */
  read(recs: Rec[], nowMs: number): Rec[] {
    if (!this.slides) return recs
    const ts = Math.floor(nowMs / 1000)
    return recs.map((rec) => {
      if (ts <= rec._ts) return rec
      const touched = { ...rec, _ts: ts }
      this.writtenTsOf.set(touched, this.lastWrittenTs(rec))
      if (this.disk.get(rec.id) === rec) this.disk.set(rec.id, touched)
      return touched
    })
  }

  cls(rec: Record<string, unknown>): TtlClass {
    return classify(rec.ttl, this.mode)
  }

  /** Seconds after `_ts` the item dies under the default in force; null: it never does. */
  life(rec: Rec): number | null {
    if (this.d === null) return null
    const c = this.cls(rec)
    if (c.kind === 'never' || c.kind === 'invalid') return null
    if (c.kind === 'own') return c.seconds
    return this.d === -1 ? null : this.d
  }

  deadByWatermark(rec: Rec): boolean {
    const c = this.cls(rec)
    if (c.kind === 'inherit') return rec._ts <= this.deadTs
    if (c.kind === 'own') return rec._ts + c.seconds <= this.deadExpiry
    return false
  }

  isDead(rec: Rec, nowMs: number): boolean {
    if (this.deadByWatermark(rec)) return true
    const life = this.life(rec)
    return life !== null && nowMs / 1000 >= rec._ts + life
  }

  /** Live items in key order, as a connection whose `now` is `nowMs` must see them. */
  live(nowMs: number): Rec[] {
    return [...this.disk.values()].filter((rec) => !this.isDead(rec, nowMs)).sort((a, b) => cmp(a.id, b.id))
  }

  dead(nowMs: number): Rec[] {
    return [...this.disk.values()].filter((rec) => this.isDead(rec, nowMs))
  }

  /** Live items in the order of the index on `field` (index key, then primary key); items without the field are not in it. */
  liveByIndex(field: 'g' | 'u', nowMs: number): Rec[] {
    return this.live(nowMs)
      .filter((rec) => rec[field] !== undefined)
      .sort((a, b) => cmp(a[field] as string | number, b[field] as string | number) || cmp(a.id, b.id))
  }

  /** The `_ts` a write at `nowMs` stamps (SPEC §6: never born dead). */
  stampTs(ttl: unknown, nowMs: number): number {
    const base = Math.floor(nowMs / 1000)
    const c = classify(ttl, this.mode)
    if (c.kind === 'inherit' && this.deadTs > -Infinity) return Math.max(base, Math.floor(this.deadTs) + 1)
    if (c.kind === 'own' && this.deadExpiry > -Infinity) return Math.max(base, Math.floor(this.deadExpiry) + 1 - c.seconds)
    return base
  }

  /**
   * The `_ts` a write at `nowMs` stores for `value`: its own when the store keeps it (`setsTs`:
   * the write sets one) and it is whole epoch seconds, else the stamp.
   */
  writtenTs(value: Record<string, unknown>, setsTs: boolean, nowMs: number): number {
    if (this.keepTs && setsTs && Object.hasOwn(value, '_ts') && isWholeSeconds(value._ts)) return value._ts
    return this.stampTs(value.ttl, nowMs)
  }

  /**
   * With a grace: when (epoch ms) the default last changed. What a change killed, or kept dead,
   * expired at most then; which it was is not kept (docs/stale.md), so that is its `expiredAt`.
   */
  changedAt = -Infinity

  /**
   * When a dead item left the reads (epoch ms, docs/stale.md): its expiry under the settings in
   * force, unless the last change of default killed it or kept it dead (a watermark holds it, or
   * it was dead by that expiry before the change): then the change's instant, which may be ahead
   * of a connection whose clock is behind the one that made the change.
   */
  expiredAt(rec: Rec): number {
    const life = this.life(rec)
    const natural = life === null ? Infinity : (rec._ts + life) * 1000
    const killed = this.deadByWatermark(rec) || natural < this.changedAt
    return killed ? this.changedAt : natural
  }

  /** Whether a purge at `nowMs` may delete `rec`: dead, and past its grace where the store keeps one. */
  isPurgeable(rec: Rec, nowMs: number): boolean {
    return this.isDead(rec, nowMs) && (this.grace === undefined || this.expiredAt(rec) + this.grace * 1000 <= nowMs)
  }

  purgeable(nowMs: number): Rec[] {
    return [...this.disk.values()].filter((rec) => this.isPurgeable(rec, nowMs))
  }

  /** SPEC §15: the dead items within their grace, in key order, as `getAllStale` returns them. */
  stale(nowMs: number): { key: string; value: Rec; expiredAt: number }[] {
    return this.dead(nowMs)
      .filter((rec) => !this.isPurgeable(rec, nowMs))
      .sort((a, b) => cmp(a.id, b.id))
      .map((rec) => ({ key: rec.id, value: rec, expiredAt: this.expiredAt(rec) }))
  }

  /** When a purge next has something to delete (epoch ms): the next death, plus the grace where there is one. */
  nextPurgeMs(nowMs: number): number {
    const grace = this.grace
    if (grace === undefined) return this.nextDeathMs(nowMs)
    const kept = [...this.disk.values()].filter((rec) => !this.isPurgeable(rec, nowMs))
    // A live item that dies before the last change (a connection whose clock is behind it) counts as expired at the change.
    const expiry = (rec: Rec) => (this.isDead(rec, nowMs) ? this.expiredAt(rec) : Math.max(this.nextDeathOf(rec), this.changedAt))
    return Math.min(Infinity, ...kept.map((rec) => expiry(rec) + grace * 1000))
  }

  private nextDeathOf(rec: Rec): number {
    const life = this.life(rec)
    return life === null ? Infinity : (rec._ts + life) * 1000
  }

  /** A change of default at `nowMs` (SPEC §3 watermarks; they only grow). */
  setDefault(value: DefaultTtl, nowMs: number): void {
    if (this.grace !== undefined) this.changedAt = nowMs
    const now = nowMs / 1000
    if (this.d !== null && this.d > 0) this.deadTs = Math.max(this.deadTs, now - this.d)
    if (this.d !== null) this.deadExpiry = Math.max(this.deadExpiry, now)
    this.d = value
  }

  /**
   * Where a live item stands in the store's evict order (SPEC §9), compared lexicographically,
   * smaller first; equal ranks are tied. `'oldest'`: `_ts`, then the write. `'soonest'`: items
   * that will expire by their expiry under the settings in force (ties stay ties), then those
   * that never will by `_ts`, then the write.
   */
  evictRank(rec: Rec): [number, number, number] {
    const order = this.disk.writeOrder(rec)
    if (this.cap?.evict !== 'soonest') return [0, rec._ts, order]
    const life = this.life(rec)
    return life === null ? [1, rec._ts, order] : [0, rec._ts + life, 0]
  }

  /** Live items at `nowMs` beyond the cap (0 without one). */
  surplus(nowMs: number): number {
    return this.cap ? Math.max(0, this.live(nowMs).length - this.cap.maxEntries) : 0
  }

  /**
   * Why a purge at `nowMs` may not evict the live items `evicted` (ids), or undefined when it
   * may (see the file header); `finished`: the purge ran to the end, so the whole surplus must be
   * gone. Judged on the state before the purge (dead items do not count as live).
   */
  evictionFault(evicted: readonly string[], nowMs: number, finished: boolean): string | undefined {
    const live = this.live(nowMs)
    const out = live.filter((rec) => evicted.includes(rec.id))
    const kept = live.filter((rec) => !evicted.includes(rec.id))
    if (out.length !== evicted.length) return `evicted ${evicted.join(',')}, not all of which are live`
    if (!this.cap) return out.length > 0 ? `evicted ${evicted.join(',')} from a store without a cap` : undefined
    const surplus = this.surplus(nowMs)
    if (out.length > surplus) return `evicted ${out.length} of ${live.length} live items, more than the surplus ${surplus} over maxEntries ${this.cap.maxEntries}`
    if (finished && out.length < surplus) return `a finished purge evicted ${out.length} of ${live.length} live items, leaving more than maxEntries ${this.cap.maxEntries}`
    for (const e of out) {
      for (const x of kept) {
        if (cmpRank(this.evictRank(e), this.evictRank(x)) > 0) {
          return `evicted ${e.id} (rank ${this.evictRank(e).join('/')}) but kept ${x.id} (rank ${this.evictRank(x).join('/')}), which comes first in '${this.cap.evict}' order`
        }
      }
    }
    return undefined
  }

  /**
   * Whether the edge of an eviction of `count` items falls between two items of the same second
   * (or the same second of items that never expire, in `'soonest'` order) that only the order of
   * their writes sets apart.
   */
  secondSplitAtEdge(count: number, nowMs: number): boolean {
    if (count === 0) return false
    const ranks = this.live(nowMs)
      .map((rec) => this.evictRank(rec))
      .sort(cmpRank)
    if (count >= ranks.length) return false
    const [a, b] = [ranks[count - 1], ranks[count]]
    return a[0] === b[0] && a[1] === b[1] && a[2] !== b[2]
  }

  /** Whether the edge of an eviction of `count` items falls inside a group of tied items (several choices were allowed). */
  tiedAtEdge(count: number, nowMs: number): boolean {
    if (count === 0) return false
    const ranks = this.live(nowMs)
      .map((rec) => this.evictRank(rec))
      .sort(cmpRank)
    return count < ranks.length && cmpRank(ranks[count - 1], ranks[count]) === 0
  }

  /** When the next item on disk that is live at `nowMs` dies (epoch ms); Infinity: none will. */
  nextDeathMs(nowMs: number): number {
    let next = Infinity
    for (const rec of this.live(nowMs)) {
      const life = this.life(rec)
      if (life !== null) next = Math.min(next, (rec._ts + life) * 1000)
    }
    return next
  }
}

export function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0
}

function cmpRank(a: readonly number[], b: readonly number[]): number {
  return cmp(a[0], b[0]) || cmp(a[1], b[1]) || cmp(a[2], b[2])
}

/** The whole database: two stores sharing one mode. */
export class DbModel {
  readonly stores: Record<StoreName, StoreModel>
  constructor(
    readonly mode: Mode,
    declared: Record<StoreName, DefaultTtl>,
    keepTs: Record<StoreName, boolean> = { s: false, t: false },
    slides: Record<StoreName, boolean> = { s: false, t: false },
    caps: Partial<Record<StoreName, Cap>> = {},
    graces: Partial<Record<StoreName, number>> = {},
  ) {
    this.stores = {
      s: new StoreModel('s', declared.s, mode, keepTs.s, slides.s, caps.s, graces.s),
      t: new StoreModel('t', declared.t, mode, keepTs.t, slides.t, caps.t, graces.t),
    }
  }

  /** What `openTtlDB` does with a declaration at `nowMs`: a changed one counts as a change of default. */
  declare(declared: Record<StoreName, DefaultTtl>, nowMs: number): void {
    for (const name of STORES) {
      const store = this.stores[name]
      if (declared[name] !== store.declared) {
        store.setDefault(declared[name], nowMs)
        store.declared = declared[name]
      }
    }
  }
}

/** A value as written, minus what the library owns (`_ts` is overwritten, `$`-fields are its own). */
export function userFields(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) if (k !== '_ts' && !k.startsWith('$')) out[k] = v
  return out
}

/** What is physically stored, as users would read it: without the library's `$` bookkeeping. */
export function withoutBookkeeping(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) if (!k.startsWith('$')) out[k] = v
  return out
}

/**
 * Whether writing `batch` (in order, each replacing its key) over `holders` (key → unique value)
 * runs into a unique-index clash, or, for `add`, a key already held. `physical`: as IndexedDB
 * sees it (dead values hold too).
 */
export function clashes(
  holders: Map<string, unknown>,
  batch: { id: string; u?: unknown; bornDead?: boolean }[],
  add = false,
  physical = false,
): boolean {
  const view = new Map(holders)
  for (const item of batch) {
    if (add && view.has(item.id)) return true
    view.delete(item.id)
    if (item.u !== undefined) for (const u of view.values()) if (u === item.u) return true
    // A value written dead (a keepTs store keeping an old _ts) occupies nothing for the writes after it.
    if (physical || !item.bornDead) view.set(item.id, item.u)
  }
  return false
}
