/** What every write does to a value before it is stored: validate, stamp `_ts`, add the mark. */
import { refuse } from '../rules/refusal.js'
import { MARK_FIELD } from './expiry-index.js'
import { lowestLiveTs, markOf, OWN_BASE, type ExpiryMark } from '../rules/policy.js'
import { stampOf, ttlOf, type ItemTtl, type TtlValues } from '../rules/ttl.js'
import type { Watermarks } from './held-settings.js'

type Item = Record<string, unknown>

/**
 * The field of a stored value that orders the writes of one second: `_ts` is whole seconds, and
 * `evict: 'oldest'` gives up the least recently written first, ties of `_ts` included. Epoch ms
 * of the write (or of the read that touched it, `touchOnRead`), raised where needed to stay above
 * every order this realm gave before, so that writes in one millisecond (a `putAll`) keep their
 * order. Not indexed: eviction reads it only among the items of the oldest second.
 */
export const ORDER_FIELD = '$at'
/** Exactly representable next to epoch ms until the year 2527. */
const ORDER_STEP = 2 ** -8
let lastOrder = -Infinity

/**
 * The field naming the realm (page or worker, this copy of the library) that wrote a stored value.
 * A write order is unique only within its realm: two tabs writing one key in the same millisecond
 * would otherwise store values that nothing tells apart, which a live query would take for the
 * same write and the undoing of a leaked write (`purge/undo-leaked.ts`) for its own. A random number
 * drawn once per realm (52 bits: two realms share one about once in 2^52).
 */
export const WRITER_FIELD = '$by'
/** This realm, as {@link WRITER_FIELD} names it. */
export const WRITER = Math.floor(Math.random() * 2 ** 52)

/** The order of a write at `nowMs` (epoch ms): above every one this realm gave before. */
export function writeOrder(nowMs: number): number {
  return (lastOrder = Math.max(nowMs, lastOrder + ORDER_STEP))
}

/**
 * A value that passed validation: a copy of its own fields, taken when the write was made (the
 * caller's value is never touched), and what its `ttl` means.
 */
export interface Checked {
  fields: Item
  ttl: ItemTtl
  /** The value's own `_ts`, kept as it is (`keepTs` stores). */
  keptTs?: number
}

/** Whether `ts` can be kept as an item's `_ts`: whole epoch seconds, below the own-ttl marks. */
export function isKeepableTs(ts: unknown): ts is number {
  return typeof ts === 'number' && Number.isInteger(ts) && ts >= 0 && ts < OWN_BASE
}

/** Whether `value` can carry `_ts`: a plain object (class instances are stored as plain ones). */
export function isPlainObject(value: unknown): value is Item {
  return Object.prototype.toString.call(value) === '[object Object]'
}

/**
 * Validates a value for writing; `where` names it in errors (`store "s"`, `store "s", item 3`).
 * Only the value's own `ttl` counts: an inherited one would not be stored. With `keepTs`, the
 * value's own `_ts` is kept when it is valid (SPEC §7).
 * @throws TtlError `INVALID_VALUE` for anything but a plain object, or (strict mode, `keepTs`)
 * a `_ts` that cannot be kept; `INVALID_TTL` (strict mode). Each `refuse`d: the handle's write, or
 * the transaction or the mirror that checked it, explains it.
 */
export function check(value: unknown, mode: TtlValues, where: string, keepTs = false): Checked {
  if (!isPlainObject(value)) throw refuse('INVALID_VALUE', 'plainObject', where, value)
  // The one copy a write makes of its value: judged, stamped (`stampAt`) and stored.
  const fields: Item = { ...value }
  const given = Object.hasOwn(value, 'ttl') ? value.ttl : undefined
  const ttl = ttlOf(given, mode)
  if (!ttl) throw refuse('INVALID_TTL', 'ttl', where, given)
  if (keepTs && Object.hasOwn(fields, '_ts')) {
    if (isKeepableTs(fields._ts)) return { fields, ttl, keptTs: fields._ts }
    if (mode !== 'lenient') throw refuse('INVALID_VALUE', 'keepTs', where, fields._ts)
  }
  return { fields, ttl }
}


/**
 * The stored form of a checked value written at `nowMs`: `_ts` set and the expiry mark added.
 * With the store's watermarks known, `_ts` is raised where needed to keep the item above what
 * earlier settings left dead: a write is never born dead, even after the clock stepped back.
 * `order`: the write's order ({@link ORDER_FIELD}), taken when it was issued if it is stamped later.
 * It is `checked.fields` itself, stamped in place: a written value is copied once, by {@link check}.
 * A retry stamps it again, over what the attempt before stamped.
 */
export function stampAt(checked: Checked, nowMs: number, watermarks?: Watermarks, order = writeOrder(nowMs)): Item {
  // A kept _ts is the server's: the copy expires with the original, even if born dead.
  const ts = checked.keptTs ?? Math.max(stampOf(nowMs), watermarks ? lowestLiveTs(watermarks, checked.ttl) : -Infinity)
  const stored = checked.fields
  stored._ts = ts
  stored[ORDER_FIELD] = order
  stored[WRITER_FIELD] = WRITER
  const mark = markOf(checked.ttl, ts)
  if (mark === undefined) delete stored[MARK_FIELD]
  else stored[MARK_FIELD] = mark
  return stored
}

/**
 * Whether `stored`, `checked` as stamped, is dead at once under `watermarks`: settings read after
 * it was stamped, which another tab raised meanwhile. A kept `_ts` may be, on purpose.
 */
export function bornDead(checked: Checked, stored: Item, watermarks: Watermarks): boolean {
  return checked.keptTs === undefined && (stored._ts as number) < lowestLiveTs(watermarks, checked.ttl)
}

/** The expiry mark of a stored value, if it has one. */
export function markOfStored(value: unknown): ExpiryMark | undefined {
  return value !== null && typeof value === 'object' ? ((value as Item)[MARK_FIELD] as ExpiryMark | undefined) : undefined
}

/** The stored value as users see it: without the library's bookkeeping. Mutates the read copy. */
export function unstamp<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value
  if (MARK_FIELD in value) delete (value as Item)[MARK_FIELD]
  if (ORDER_FIELD in value) delete (value as Item)[ORDER_FIELD]
  if (WRITER_FIELD in value) delete (value as Item)[WRITER_FIELD]
  return value
}

/** A stored value's write order (`-Infinity`: written before the library kept one). */
export function orderOfStored(value: unknown): number {
  const order = value !== null && typeof value === 'object' ? (value as Item)[ORDER_FIELD] : undefined
  return typeof order === 'number' ? order : -Infinity
}

/** Which write stored a value: its write order and its writer, which no write of another realm shares. */
export function writeOfStored(value: unknown): string {
  const writer = value !== null && typeof value === 'object' ? (value as Item)[WRITER_FIELD] : undefined
  return `${orderOfStored(value)}:${String(writer)}`
}
