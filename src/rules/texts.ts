/**
 * The words of the refusals `openTtlDB` makes while it checks its options and the database's schema,
 * and of those the handle's calls make on their asynchronous paths (issue #44: long error texts on
 * first use): the checks stay where they are, and throw a {@link refuse}d error that names its text
 * here; the open (and a reopen's connection) and the handle's routes fill the text in before the
 * call rejects (`refusal.ts`). The page entries load this module with `import()` at the first
 * refusal, `idb-ttl/service-worker` imports it.
 */
import { kindOf } from './errors.js'
import { unknownOptionText } from './option-hint.js'
import { OWN_BASE } from './policy.js'
import { MAX_TTL } from './ttl.js'

/** Each text, by the key a refusal names it with, from the values the check found. */
export const TEXTS = {
  options: () => 'openTtlDB needs an options object: { version, stores }',
  upgrade: (upgrade: unknown) => `openTtlDB: upgrade must be a function run in the upgrade transaction; got ${kindOf(upgrade)}`,
  ttlValues: (mode: unknown) => `ttlValues must be 'strict' or 'lenient'; got ${String(mode)}`,
  durability: (durability: unknown) =>
    `openTtlDB: durability must be 'default', 'strict' or 'relaxed'; got ${typeof durability === 'string' ? `'${durability}'` : kindOf(durability)}`,
  clock: (clock: unknown, now: unknown) =>
    `openTtlDB: clock must be a function giving epoch ms; got ${typeof clock === 'function' ? `one that gave ${typeof now === 'number' ? now : kindOf(now)}` : kindOf(clock)}`,
  unknownOption: (where: string, name: string, known: readonly string[]) => unknownOptionText(where, name, known),
  purge: (options: unknown) => `purge must be an options object; got ${String(options)}`,
  purgeMode: (mode: unknown) => `purge.mode must be 'worker', 'inline' or 'off'; got ${String(mode)}`,
  batchSize: () => 'purge.batchSize must be a positive integer',
  purgeMs: (key: string) => `purge.${key} must be a positive number of ms`,
  stores: () => 'openTtlDB needs a `stores` object: { storeName: { keyPath, defaultTtl } }',
  ownStore: (name: string) => `"${name}" is the library's own store name`,
  storeObject: (name: string) => `store "${name}" needs an options object`,
  indexObject: (index: string, name: string) => `index "${index}" of store "${name}" needs an options object`,
  boolean: (name: string, option: string, value: unknown) => `store "${name}": ${option} must be true or false; got ${String(value)}`,
  touchOnRead: (name: string) => `store "${name}": touchOnRead needs an in-line keyPath (reads find a touched item by its key)`,
  mirror: (name: string) => `store "${name}": mirror needs keyPath: 'id' (the item's Cosmos DB id), without autoIncrement or evictOnQuota`,
  maxEntries: (name: string, value: unknown) => `store "${name}": maxEntries must be an integer of at least 1; got ${String(value)}`,
  evict: (name: string, value: unknown) => `store "${name}": evict must be 'oldest' or 'soonest'; got ${String(value)}`,
  keepExpired: (name: string, value: unknown) => `store "${name}": keepExpired must be whole seconds from 1 to ${MAX_TTL}; got ${String(value)}`,
  ownIndex: (name: string, index: string) => `store "${name}": "${index}" is the library's own index name`,
  keyShape: (store: string, database: string, onDisk: string, declared: string) =>
    `store "${store}" of database "${database}" has ${onDisk}, declared with ${declared}: ` +
    'IndexedDB cannot change the key of a store that exists, at any version. Declare it as it is on disk, ' +
    'or declare a store of another name (created with the new key) and copy the items into it.',
  lacks: (database: string, version: number, missing: string[]) =>
    `database "${database}" version ${version} lacks TTL stores or indexes for ${missing.join(', ')}: open it with a higher version (${version + 1}) to create them`,
  changed: (database: string) => `the database "${database}" changed while it was opened`,
  indexedDB: (call: string, name: string) =>
    `${call}(${JSON.stringify(name)}) needs IndexedDB, and this environment has none (Node, or a server render): open the database in the browser. ` +
    "In Node (tests, scripts), install fake-indexeddb and import 'fake-indexeddb/auto' before idb-ttl.",
  // The checks of a value and of a default (`layout/stamp.ts`, `layout/schema.ts`, `writes/writes.ts`).
  // The words of `resolver.ts`'s checkDefaultTtl and itemTtl, written again: this chunk, loaded later,
  // importing the resolver, which the entries export, makes an app's bundler split idb-ttl's first
  // load in two (+1.2 kB measured). test/handle/call-texts.node.test.ts holds the two to the same words.
  defaultTtl: (where: string, value: unknown) => `${where}: defaultTtl must be null, -1 or an integer from 1 to ${MAX_TTL}; got ${describeTtl(value)}`,
  ttl: (where: string, value: unknown) => `${where}: ttl must be absent, null, -1 or an integer from 1 to ${MAX_TTL}; got ${describeTtl(value)}`,
  plainObject: (where: string, value: unknown) => `${where}: a TTL store holds plain objects only (the library stamps _ts on them); got ${kindOf(value)}`,
  keepTs: (where: string, ts: unknown) => `${where}: keepTs keeps a _ts of whole epoch seconds (an integer from 0 to ${OWN_BASE - 1}); got ${describeTs(ts)}`,
  // The calls' refusals.
  putAll: (store: string, values: unknown) => `store "${store}": putAll takes an array of values; got ${kindOf(values)}`,
  newDefault: (store: string) => `store "${store}": setDefaultTtl needs null (TTL off), -1 or an integer from 1 to ${MAX_TTL}; got undefined`,
}

/** A refused `ttl` or `defaultTtl` as messages show it (`resolver.ts` shows it so). */
function describeTtl(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object'
  return String(value)
}

/** A refused `_ts` as messages show it: the value itself where that says what it is. */
function describeTs(ts: unknown): string {
  if (typeof ts === 'number' || typeof ts === 'boolean') return String(ts)
  if (typeof ts === 'bigint') return `the bigint ${ts}n`
  if (typeof ts === 'string') return `the string ${JSON.stringify(ts)}`
  return kindOf(ts)
}
