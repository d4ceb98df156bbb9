/**
 * The pure time-to-live rules, shared by the store, the purge worker and the demo: what a `ttl`
 * and a `defaultTtl` mean, without the words of their refusals, which the public resolver
 * (`resolver.ts`) and the texts loaded at a write's first refusal (`texts.ts`) hold (issue #44).
 * No DOM or IndexedDB imports: it only turns values into decisions.
 */

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

/** `value` as a TTL: `null` (absent), -1 or seconds; `undefined` when it is none (the callers refuse it in their words). */
export function normalizeTtl(value: unknown, allowBigint: boolean): number | null | undefined {
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

/** True when `value` is a valid TTL: null/absent, -1, or an integer 1 … 2147483647. */
export function isValidTtl(value: unknown): boolean {
  return normalizeTtl(value, false) !== undefined
}

/**
 * What an item's `ttl` field means: in lenient mode an invalid value means "inherit", and a bigint
 * that fits counts as that integer; in strict mode it is `undefined` (the callers refuse it in their words).
 */
export function ttlOf(value: unknown, mode: TtlValues): ItemTtl | undefined {
  const n = normalizeTtl(value, mode === 'lenient')
  if (n === undefined) return mode === 'lenient' ? INHERIT : undefined
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

/** When an item of `ttl`, written at `ts` (epoch seconds), expires under `defaultTtl`: epoch ms, `Infinity` for never. */
export function expiryOf(ttl: ItemTtl, defaultTtl: DefaultTtl, ts: number): number {
  const seconds = effectiveTtl(ttl, defaultTtl)
  return seconds === null ? Infinity : (ts + seconds) * 1000
}

/** `_ts` for a write at `nowMs`: whole epoch seconds, as in Cosmos DB. */
export function stampOf(nowMs: number): number {
  return Math.floor(nowMs / 1000)
}
