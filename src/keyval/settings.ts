/**
 * What each store knows beyond idb-keyval: its `defaultTtl` and clock. A store made by
 * `createStore` declares them; any other `UseStore` (a custom one written for idb-keyval) gets the
 * defaults on first use.
 */
import { checkDefaultTtl, type DefaultTtl } from '../rules/ttl.js'
import type { StoreOptions, UseStore } from './types.js'

interface Settings {
  defaultTtl: DefaultTtl
  clock: () => number
  /** The largest clock value used: within a store, time never runs backwards (SPEC §6). */
  last: number
}

const known = new WeakMap<UseStore, Settings>()

/**
 * Records `use`'s options (`where` names it in an error).
 * @throws TtlError `INVALID_TTL` for a bad `defaultTtl`
 */
export function declare(use: UseStore, where: string, { defaultTtl, clock = Date.now }: StoreOptions = {}): void {
  // Absent, the store behaves as idb-keyval's and an entry given a `ttl` still expires: -1.
  known.set(use, { defaultTtl: defaultTtl === undefined ? -1 : checkDefaultTtl(defaultTtl, where), clock, last: 0 })
}

/** `use`'s `defaultTtl`. */
export function defaultTtlOf(use: UseStore): DefaultTtl {
  return settingsOf(use).defaultTtl
}

/** The store's `now`, epoch ms: its clock, never less than a value it gave before. */
export function nowOf(use: UseStore): number {
  const settings = settingsOf(use)
  return (settings.last = Math.max(settings.last, settings.clock()))
}

function settingsOf(use: UseStore): Settings {
  if (!known.has(use)) declare(use, '')
  return known.get(use)!
}
