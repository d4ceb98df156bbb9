/**
 * Turns what a visitor types into the JavaScript value a program would pass as a TTL, so the
 * resolver sees the real thing: `20.5` is a number, `"10"` a string, `10n` a bigint, blank absent.
 */

const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i
const SPECIAL: Record<string, unknown> = { null: null, true: true, false: false, NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity }

export function parseTtlInput(text: string): unknown {
  const t = text.trim()
  if (t === '') return undefined
  const quoted = /^"(.*)"$|^'(.*)'$/s.exec(t)
  if (quoted) return quoted[1] ?? quoted[2]
  if (/^-?\d+n$/.test(t)) return BigInt(t.slice(0, -1))
  if (Object.hasOwn(SPECIAL, t)) return SPECIAL[t]
  if (NUMBER.test(t)) return Number(t)
  return t
}

/** How a value reads in source code: `"10"`, `10n`, `20.5`, `absent`. */
export function showValue(value: unknown): string {
  if (value === undefined) return 'absent'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'number' && Object.is(value, -0)) return '-0'
  return String(value)
}
