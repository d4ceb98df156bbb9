/**
 * The plugin's options, checked at construction and turned into the settings its entries work
 * with. Names of Workbox's and Serwist's `ExpirationPlugin` are accepted where they mean the same
 * thing; every other unknown name is refused, as `openTtlDB` refuses them.
 */
import { TtlError } from '../rules/errors.js'
import { checkDefaultTtl } from '../rules/resolver.js'
import { MAX_TTL } from '../rules/ttl.js'
import type { TtlExpirationPluginOptions } from './types.js'

const KNOWN = ['defaultTtl', 'maxAgeSeconds', 'ttl', 'touchOnRead', 'maxAgeFrom', 'maxEntries', 'evictOnQuota', 'purgeOnQuotaError', 'matchOptions', 'staleIfError', 'clock'] as const

/** The options as the plugin works with them. */
export interface Settings {
  /** The entries' default lifetime: -1 or seconds (the store's `defaultTtl`, SPEC §1). */
  lifetime: number
  /** Each use restarts the countdown (`touchOnRead`, `maxAgeFrom: 'last-used'`). */
  sliding: boolean
  /** Each use is recorded, for an order of use (`maxEntries`, `evictOnQuota`). */
  ordered: boolean
  /** How long an expired response is kept for a failing network (`staleIfError`), ms; 0: not. */
  graceMs: number
  ttl: TtlExpirationPluginOptions['ttl']
  maxEntries: number | undefined
  evictOnQuota: boolean
  matchOptions: CacheQueryOptions | undefined
  clock: (() => number) | undefined
}

const where = 'TtlExpirationPlugin'

/** What a value is, for messages. */
const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value)

/** @throws TtlError `INVALID_OPTION` naming the option; `INVALID_TTL` for a bad lifetime */
export function checkOptions(options: TtlExpirationPluginOptions): Settings {
  if (options === null || typeof options !== 'object') throw new TtlError('INVALID_OPTION', `${where} needs an options object; got ${kindOf(options)}`)
  for (const name of Object.keys(options)) {
    if (!(KNOWN as readonly string[]).includes(name)) throw new TtlError('INVALID_OPTION', `${where}: unknown option ${JSON.stringify(name)}; known options: ${KNOWN.join(', ')}`)
  }
  const { defaultTtl, maxAgeSeconds, ttl, maxEntries, matchOptions, staleIfError, clock } = options
  if (defaultTtl !== undefined && maxAgeSeconds !== undefined) throw new TtlError('INVALID_OPTION', `${where}: give defaultTtl or maxAgeSeconds (its Workbox name), not both`)
  if (ttl !== undefined && ttl !== 'cache-control' && typeof ttl !== 'function') throw new TtlError('INVALID_OPTION', `${where}: ttl must be 'cache-control' or a function of { request, response }; got ${kindOf(ttl)}`)
  if (maxEntries !== undefined && !(Number.isSafeInteger(maxEntries) && maxEntries >= 1)) throw new TtlError('INVALID_OPTION', `${where}: maxEntries must be an integer of at least 1; got ${String(maxEntries)}`)
  if (matchOptions !== undefined && (matchOptions === null || typeof matchOptions !== 'object')) throw new TtlError('INVALID_OPTION', `${where}: matchOptions must be an object (CacheQueryOptions); got ${kindOf(matchOptions)}`)
  if (staleIfError !== undefined && !(Number.isSafeInteger(staleIfError) && staleIfError >= 1 && staleIfError <= MAX_TTL)) throw new TtlError('INVALID_OPTION', `${where}: staleIfError must be seconds, an integer from 1 to ${MAX_TTL}; got ${String(staleIfError)}`)
  if (clock !== undefined && typeof clock !== 'function') throw new TtlError('INVALID_OPTION', `${where}: clock must be a function returning epoch ms; got ${kindOf(clock)}`)
  const evictOnQuota = flag(options, 'evictOnQuota') || flag(options, 'purgeOnQuotaError')
  return {
    lifetime: lifetime(options),
    sliding: sliding(options),
    // Entries that keep their last use (least recently used go first) write it with their _ts
    // kept: a use orders, and never lengthens a life.
    ordered: maxEntries !== undefined || evictOnQuota,
    graceMs: (staleIfError ?? 0) * 1000,
    ttl,
    maxEntries,
    evictOnQuota,
    matchOptions,
    clock,
  }
}

/** `defaultTtl` or `maxAgeSeconds`: -1 or seconds; `-1` when neither is given. */
function lifetime(options: TtlExpirationPluginOptions): number {
  const name = options.defaultTtl !== undefined ? 'defaultTtl' : 'maxAgeSeconds'
  const given = options[name]
  if (given === undefined) return -1
  // null would turn TTL off for the store: every response served for ever, expired or not.
  if (given === null) throw new TtlError('INVALID_OPTION', `${where}: ${name} must be -1 or seconds; got null`)
  return checkDefaultTtl(given, `${where} (${name})`)!
}

/** `touchOnRead` and Serwist's `maxAgeFrom`, which must agree when both are given. */
function sliding(options: TtlExpirationPluginOptions): boolean {
  const { maxAgeFrom } = options
  if (maxAgeFrom !== undefined && maxAgeFrom !== 'last-fetched' && maxAgeFrom !== 'last-used') {
    throw new TtlError('INVALID_OPTION', `${where}: maxAgeFrom must be 'last-fetched' or 'last-used'; got ${String(maxAgeFrom)}`)
  }
  const touch = flag(options, 'touchOnRead')
  if (maxAgeFrom !== undefined && options.touchOnRead !== undefined && touch !== (maxAgeFrom === 'last-used')) {
    throw new TtlError('INVALID_OPTION', `${where}: touchOnRead: ${touch} contradicts maxAgeFrom: '${maxAgeFrom}'; give one of them`)
  }
  return touch || maxAgeFrom === 'last-used'
}

function flag(options: TtlExpirationPluginOptions, name: 'touchOnRead' | 'evictOnQuota' | 'purgeOnQuotaError'): boolean {
  const value = options[name]
  if (value !== undefined && typeof value !== 'boolean') throw new TtlError('INVALID_OPTION', `${where}: ${name} must be true or false; got ${String(value)}`)
  return value ?? false
}
