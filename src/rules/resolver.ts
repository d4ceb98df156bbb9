/**
 * The time-to-live resolver as the app calls it (exported by every entry): the rules of `ttl.ts`,
 * refusing a bad `ttl` or `defaultTtl` at once, in words. Apart from `ttl.ts` (issue #44): the
 * handle's own checks refuse with a key whose words load at the first refusal (`texts.ts`, which
 * has these words too), so that a page loads none of this unless it calls the resolver. No DOM or
 * IndexedDB imports: it only turns values into decisions.
 */
import { TtlError } from './errors.js'
import { effectiveTtl, MAX_TTL, normalizeTtl, stampOf, ttlOf, type DefaultTtl, type ItemTtl, type TtlValues } from './ttl.js'

/** A refused `ttl`, `defaultTtl` or moment as messages show it. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object'
  return String(value)
}

/**
 * Validates a store `defaultTtl` (the same rule in both modes); `where` names it in the message
 * (`store "sessions"`).
 * @throws TtlError `INVALID_TTL`
 */
export function checkDefaultTtl(value: unknown, where?: string): DefaultTtl {
  const n = normalizeTtl(value, false)
  if (n === undefined) throw new TtlError('INVALID_TTL', `${where ? `${where}: ` : ''}defaultTtl must be null, -1 or an integer from 1 to ${MAX_TTL}; got ${describe(value)}`)
  return n
}

/**
 * Reads an item's `ttl` field. In strict mode an invalid value throws; in lenient mode it is
 * kept on the item but means "inherit", and a bigint that fits counts as that integer.
 * @throws TtlError `INVALID_TTL` (strict mode only)
 */
export function itemTtl(value: unknown, mode: TtlValues = 'strict'): ItemTtl {
  const ttl = ttlOf(value, mode)
  if (!ttl) throw new TtlError('INVALID_TTL', `ttl must be absent, null, -1 or an integer from 1 to ${MAX_TTL}; got ${describe(value)}`)
  return ttl
}

/** Options of {@link expiresAt} and {@link isExpired}. */
export interface ResolveOptions {
  /** How to read an invalid item `ttl`; default `'strict'` (throws). */
  ttlValues?: TtlValues
}

/**
 * When an item expires under a store default, in epoch milliseconds; `Infinity` when it never
 * does. The item needs its `_ts` (epoch seconds) as written by the store.
 * @throws TtlError `INVALID_TTL` for an invalid default (or item ttl in strict mode)
 */
export function expiresAt(
  item: { ttl?: unknown; _ts?: unknown },
  defaultTtl: DefaultTtl,
  options: ResolveOptions = {},
): number {
  const seconds = effectiveTtl(itemTtl(item.ttl, options.ttlValues), checkDefaultTtl(defaultTtl))
  if (seconds === null) return Infinity
  const ts = item._ts
  if (typeof ts !== 'number' || !Number.isFinite(ts)) {
    throw new TtlError('INVALID_VALUE', 'item has no numeric _ts: it was never written by the store')
  }
  return (ts + seconds) * 1000
}

/**
 * Whether an item is expired at `nowMs` (epoch ms): `now >= _ts + effective ttl`.
 * This is the rule for a store whose default never changed; the store also honours what earlier
 * settings left dead (docs/semantics.md, "expired stays expired").
 */
export function isExpired(
  item: { ttl?: unknown; _ts?: unknown },
  defaultTtl: DefaultTtl,
  nowMs: number,
  options: ResolveOptions = {},
): boolean {
  return nowMs >= expiresAt(item, defaultTtl, options)
}

/**
 * The `ttl` (seconds) that makes an item written at `nowMs` expire at `atMs` (both epoch ms),
 * rounded up to the second so that it never expires early: `put(store, { ...value, ttl:
 * ttlUntil(session.expiresAtMs) })`.
 * @throws TtlError `INVALID_TTL` when that is not 1 … 2147483647 (the moment is not after the
 * current whole second, or is too far away; use -1 for never)
 */
export function ttlUntil(atMs: number, nowMs: number = Date.now()): number {
  const ttl = Math.ceil((atMs - stampOf(nowMs) * 1000) / 1000)
  if (!(ttl >= 1 && ttl <= MAX_TTL)) {
    throw new TtlError(
      'INVALID_TTL',
      `ttlUntil(${describe(atMs)}, ${describe(nowMs)}): an item written now would need ttl ${describe(ttl)}, ` +
        `but a ttl must be an integer from 1 to ${MAX_TTL} (use -1 for never)`,
    )
  }
  return ttl
}

