/** What every write does to a value before it is stored: validate, stamp `_ts`, add the mark. */
import { TtlError } from './errors.js'
import { MARK_FIELD } from './expiry-index.js'
import { lowestLiveTs, markOf, type ExpiryMark } from './policy.js'
import { itemTtl, stampOf, type ItemTtl, type TtlValues } from './ttl.js'
import type { Watermarks } from './watermarks.js'

type Item = Record<string, unknown>

/** A value that passed validation: a copy of its own fields, and what its `ttl` means. */
export interface Checked {
  fields: Item
  ttl: ItemTtl
}

/** Whether `value` can carry `_ts`: a plain object (class instances are stored as plain ones). */
export function isPlainObject(value: unknown): value is Item {
  return Object.prototype.toString.call(value) === '[object Object]'
}

/**
 * Validates a value for writing; `where` names it in errors (`store "s"`, `store "s", item 3`).
 * Only the value's own `ttl` counts: an inherited one would not be stored.
 * @throws TtlError `INVALID_VALUE` for anything but a plain object, `INVALID_TTL` (strict mode)
 */
export function check(value: unknown, mode: TtlValues, where: string): Checked {
  if (!isPlainObject(value)) {
    throw new TtlError('INVALID_VALUE', `${where}: a TTL store holds plain objects only (the library stamps _ts on them); got ${kindOf(value)}`)
  }
  try {
    return { fields: { ...value }, ttl: itemTtl(Object.hasOwn(value, 'ttl') ? value.ttl : undefined, mode) }
  } catch (error) {
    if (error instanceof TtlError) throw new TtlError(error.code, `${where}: ${error.message}`)
    throw error
  }
}

function kindOf(value: unknown): string {
  if (value === null || value === undefined) return String(value)
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? `a ${Object.prototype.toString.call(value).slice(8, -1)}` : `a ${typeof value}`
}

/**
 * The stored form of a checked value written at `nowMs`: `_ts` set and the expiry mark added.
 * With the store's watermarks known, `_ts` is raised where needed to keep the item above what
 * earlier settings left dead: a write is never born dead, even after the clock stepped back.
 */
export function stampAt(checked: Checked, nowMs: number, watermarks?: Watermarks): Item {
  const ts = Math.max(stampOf(nowMs), watermarks ? lowestLiveTs(watermarks, checked.ttl) : -Infinity)
  const stored: Item = { ...checked.fields, _ts: ts }
  const mark = markOf(checked.ttl, ts)
  if (mark === undefined) delete stored[MARK_FIELD]
  else stored[MARK_FIELD] = mark
  return stored
}

/** The expiry mark of a stored value, if it has one. */
export function markOfStored(value: unknown): ExpiryMark | undefined {
  return value !== null && typeof value === 'object' ? ((value as Item)[MARK_FIELD] as ExpiryMark | undefined) : undefined
}

/** The stored value as users see it: without the library's bookkeeping. Mutates the read copy. */
export function unstamp<T>(value: T): T {
  if (value !== null && typeof value === 'object' && MARK_FIELD in value) delete (value as Item)[MARK_FIELD]
  return value
}
