/** What every write does to a value before it is stored: validate, stamp `_ts`, add the mark. */
import { TtlError } from './errors.js'
import { MARK_FIELD } from './expiry-index.js'
import { markOf, type ExpiryMark } from './policy.js'
import { itemTtl, stampOf, type TtlValues } from './ttl.js'

type Item = Record<string, unknown>

/**
 * A copy of `value` ready to store at `nowMs`: `_ts` set and the expiry mark added.
 * @throws TtlError `INVALID_VALUE` for anything but a plain object, `INVALID_TTL` (strict mode)
 */
export function stamp(value: unknown, mode: TtlValues, nowMs: number): Item {
  if (Object.prototype.toString.call(value) !== '[object Object]') {
    throw new TtlError('INVALID_VALUE', 'a TTL store holds plain objects only: _ts must be set on the value')
  }
  const ts = stampOf(nowMs)
  const mark = markOf(itemTtl((value as Item).ttl, mode), ts)
  const stored: Item = { ...(value as Item), _ts: ts }
  if (mark) stored[MARK_FIELD] = mark
  else delete stored[MARK_FIELD]
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
