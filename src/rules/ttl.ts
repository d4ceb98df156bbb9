/**
 * The pure time-to-live resolver, shared by the store, the purge worker and the demo.
 * No DOM or IndexedDB imports: it only turns values into decisions.
 */
import { TtlError } from './errors.js'

/** Largest valid TTL in seconds: Int32.MaxValue, as in Cosmos DB. */
export const MAX_TTL = 2147483647

/** How invalid item `ttl` values are treated (SPEC §4). */
export type TtlValues = 'strict' | 'lenient'

/** A store's default: `null` (TTL off), `-1` (on, no default expiry) or seconds. */
export type DefaultTtl = number | null

/** What an item's `ttl` field means once validated. */
export type ItemTtl =
  /** inherit the store default (absent, null, or invalid in lenient mode) */
  | { kind: 'inherit' }
  /** never expires while the store's TTL is on */
  | { kind: 'never' }
  /** expires this many seconds after its last write */
  | { kind: 'seconds'; seconds: number }

const INHERIT: ItemTtl = { kind: 'inherit' }
const NEVER: ItemTtl = { kind: 'never' }

function normalize(value: unknown, allowBigint: boolean): number | null | undefined {
  if (value === undefined || value === null) return null
  let n: number
  if (typeof value === 'number') n = value
  else if (allowBigint && typeof value === 'bigint') {
    if (value < -1n || value > BigInt(MAX_TTL)) return undefined
    n = Number(value)
  } else return undefined
  if (n === -1) return -1
  if (Number.isInteger(n) && n >= 1 && n <= MAX_TTL) return n
  return undefined
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object'
  return String(value)
}

/** True when `value` is a valid TTL: null/absent, -1, or an integer 1 … 2147483647. */
export function isValidTtl(value: unknown): boolean {
  return normalize(value, false) !== undefined
}

/**
 * Validates a store `defaultTtl` (the same rule in both modes); `where` names it in the message
 * (`store "sessions"`).
 * @throws TtlError `INVALID_TTL`
 */
export function checkDefaultTtl(value: unknown, where?: string): DefaultTtl {
  const n = normalize(value, false)
  if (n === undefined) {
    throw new TtlError(
      'INVALID_TTL',
      `${where ? `${where}: ` : ''}defaultTtl must be null, -1 or an integer from 1 to ${MAX_TTL}; got ${describe(value)}`,
    )
  }
  return n
}

/**
 * Reads an item's `ttl` field. In strict mode an invalid value throws; in lenient mode it is
 * kept on the item but means "inherit", and a bigint that fits counts as that integer.
 * @throws TtlError `INVALID_TTL` (strict mode only)
 */
export function itemTtl(value: unknown, mode: TtlValues = 'strict'): ItemTtl {
  const n = normalize(value, mode === 'lenient')
  if (n === undefined) {
    if (mode === 'lenient') return INHERIT
    throw new TtlError(
      'INVALID_TTL',
      `ttl must be absent, null, -1 or an integer from 1 to ${MAX_TTL}; got ${describe(value)}`,
    )
  }
  if (n === null) return INHERIT
  return n === -1 ? NEVER : { kind: 'seconds', seconds: n }
}

/**
 * The lifetime that applies, in seconds, or `null` when the item never expires (SPEC §1 matrix).
 */
export function effectiveTtl(ttl: ItemTtl, defaultTtl: DefaultTtl): number | null {
  if (defaultTtl === null || ttl.kind === 'never') return null
  if (ttl.kind === 'seconds') return ttl.seconds
  return defaultTtl === -1 ? null : defaultTtl
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

/** `_ts` for a write at `nowMs`: whole epoch seconds, as in Cosmos DB. */
export function stampOf(nowMs: number): number {
  return Math.floor(nowMs / 1000)
}
