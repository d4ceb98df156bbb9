// Issue #44: the checks of the options beyond a store's key and default, and of the purge's
// (src/layout/options.ts), load with an open given one; a declaration that changed is applied by
// the schema work (src/layout/redeclare.ts, with upgrade.ts), loaded when an open finds it. An open
// of `{ keyPath, defaultTtl }` stores with no purge options loads neither. The refusals keep their
// codes and words; a chunk that cannot be loaded fails that open, with nothing created, and the next
// open loads it again.
import { deleteDB, openDB } from 'idb'
import { expect, test } from 'vitest'
import { inlineBackground } from '../../src/background/inline.js'
import type { OpenTtlDBOptions, StoreConfig } from '../../src/rules/types.js'
import { uniqueName } from '../helpers.js'
import { chunks, existing, SOON } from './loaders.js'

/** Options with one store `s` declared as `config`, and no purge options unless given. */
const declaring = (config: StoreConfig, more: Partial<OpenTtlDBOptions> = {}): Partial<OpenTtlDBOptions> => ({ purge: undefined, stores: { s: config }, ...more })

test('an open of { keyPath, defaultTtl } stores with no purge options loads no option checks, and a reopen as declared no schema work', async () => {
  const { open, options, upgrade } = chunks()
  const name = uniqueName()
  const first = await open(name, declaring({ keyPath: 'id', defaultTtl: 3600 }), inlineBackground)
  await first.put('s', { id: 1 })
  first.close()
  // The creation loads the schema work; its first settings are as declared.
  expect(upgrade.loads).toBe(1)
  const db = await open(name, declaring({ keyPath: 'id', defaultTtl: 3600, autoIncrement: undefined }), inlineBackground)
  expect(await db.get('s', 1)).toMatchObject({ id: 1 })
  expect({ options: options.loads, upgrade: upgrade.loads }).toEqual({ options: 0, upgrade: 1 })
  db.close()
  await deleteDB(name)
})

/** Each option whose check loads on demand: declarations it refuses, with the code and words of before, and one it accepts. */
const CASES: { option: string; refused: [Partial<OpenTtlDBOptions>, string, string][]; accepted: Partial<OpenTtlDBOptions> }[] = [
  {
    option: 'indexes',
    refused: [
      [declaring({ keyPath: 'id', indexes: { byUser: 'user' as never } }), 'INVALID_OPTION', 'index "byUser" of store "s" needs an options object'],
      [declaring({ keyPath: 'id', indexes: { byUser: { keyPath: 'user', uniq: true } as never } }), 'INVALID_OPTION', 'index "byUser" of store "s": unknown option "uniq"; did you mean unique?'],
      [declaring({ keyPath: 'id', indexes: { $ts: { keyPath: 'user' } } }), 'INVALID_OPTION', 'store "s": "$ts" is the library\'s own index name'],
    ],
    accepted: declaring({ keyPath: 'id', defaultTtl: 60, indexes: { byUser: { keyPath: 'user' } } }),
  },
  {
    option: 'keepTs',
    refused: [[declaring({ keyPath: 'id', keepTs: 'yes' as never }), 'INVALID_OPTION', 'store "s": keepTs must be true or false; got yes']],
    accepted: declaring({ keyPath: 'id', keepTs: true }),
  },
  {
    option: 'mirror',
    refused: [[declaring({ keyPath: 'key', mirror: true }), 'INVALID_OPTION', "store \"s\": mirror needs keyPath: 'id' (the item's Cosmos DB id), without autoIncrement or evictOnQuota"]],
    accepted: declaring({ keyPath: 'id', mirror: true }),
  },
  {
    option: 'touchOnRead',
    refused: [[declaring({ touchOnRead: true }), 'INVALID_OPTION', 'store "s": touchOnRead needs an in-line keyPath (reads find a touched item by its key)']],
    accepted: declaring({ keyPath: 'id', defaultTtl: 60, touchOnRead: true }),
  },
  {
    option: 'maxEntries, evict, evictOnQuota',
    refused: [
      [declaring({ keyPath: 'id', maxEntries: 0 }), 'INVALID_OPTION', 'store "s": maxEntries must be an integer of at least 1; got 0'],
      [declaring({ keyPath: 'id', maxEntries: 5, evict: 'newest' as never }), 'INVALID_OPTION', "store \"s\": evict must be 'oldest' or 'soonest'; got newest"],
      [declaring({ keyPath: 'id', evictOnQuota: 1 as never }), 'INVALID_OPTION', 'store "s": evictOnQuota must be true or false; got 1'],
    ],
    accepted: declaring({ keyPath: 'id', maxEntries: 5, evict: 'soonest', evictOnQuota: true }),
  },
  {
    option: 'keepExpired',
    refused: [[declaring({ keyPath: 'id', keepExpired: 1.5 }), 'INVALID_OPTION', 'store "s": keepExpired must be whole seconds from 1 to 2147483647; got 1.5']],
    accepted: declaring({ keyPath: 'id', defaultTtl: 60, keepExpired: 3600 }),
  },
  {
    option: 'purge',
    refused: [
      [declaring({ keyPath: 'id' }, { purge: 'off' as never }), 'INVALID_OPTION', 'purge must be an options object; got off'],
      [declaring({ keyPath: 'id' }, { purge: { mode: 'never' as never } }), 'INVALID_OPTION', "purge.mode must be 'worker', 'inline' or 'off'; got never"],
      [declaring({ keyPath: 'id' }, { purge: { batchSize: 2.5 } }), 'INVALID_OPTION', 'purge.batchSize must be a positive integer'],
      [declaring({ keyPath: 'id' }, { purge: { sliceMs: 0 } }), 'INVALID_OPTION', 'purge.sliceMs must be a positive number of ms'],
      [declaring({ keyPath: 'id' }, { purge: { mode: 'off', interval: 5 } as never }), 'INVALID_OPTION', 'purge: unknown option "interval"; known options: mode, batchSize, sliceMs, maxIntervalMs, idleTimeoutMs'],
    ],
    accepted: declaring({ keyPath: 'id' }, { purge: { mode: 'off', batchSize: 10, sliceMs: undefined } }),
  },
]

for (const { option, refused, accepted } of CASES) {
  test(`an open given ${option} loads their checks, which refuse bad values with the code and words of before (nothing created) and accept good ones`, async () => {
    const { open, options, texts } = chunks()
    for (const [declaration, code, message] of refused) {
      const name = uniqueName()
      const loads = options.loads
      await expect(open(name, declaration, inlineBackground), message).rejects.toMatchObject({ name: 'TtlError', code, message })
      expect(options.loads, message).toBe(loads + 1)
      expect(await existing()).not.toContain(name)
    }
    expect(texts.loads).toBe(refused.length)
    const name = uniqueName()
    const db = await open(name, accepted, inlineBackground)
    await db.put('s', { id: 'a', user: 'u' })
    expect(await db.get('s', 'a')).toMatchObject({ id: 'a', user: 'u' })
    expect(options.loads).toBe(refused.length + 1)
    db.close()
    await deleteDB(name)
  })
}

test('with the checks loaded, the first refusal is the one it was: stores in order, and within a store its key and default first', async () => {
  const { open } = chunks()
  const twoStores = { purge: undefined, stores: { a: { keyPath: 'id', defaultTTL: 60 } as never, b: { keyPath: 'id', maxEntries: 0 } } }
  await expect(open(uniqueName(), twoStores, inlineBackground)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: 'store "a": unknown option "defaultTTL"; did you mean defaultTtl?' })
  await expect(open(uniqueName(), declaring({ keyPath: 'id', defaultTtl: -5, maxEntries: 0 }), inlineBackground)).rejects.toMatchObject({ code: 'INVALID_TTL' })
  // The purge's options are checked after the stores', ttlValues and durability, as before.
  const late = declaring({ keyPath: 'id', maxEntries: 2 }, { purge: { batchSize: 0 }, durability: 'eventual' as never })
  await expect(open(uniqueName(), late, inlineBackground)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: "openTtlDB: durability must be 'default', 'strict' or 'relaxed'; got 'eventual'" })
})

test('a store option of a name no store takes is refused by the checks it loads (the list of known names is among them), in the words of before', async () => {
  const { open, options, texts } = chunks()
  const name = uniqueName()
  const typo = declaring({ keyPath: 'id', defaultTTL: 60 } as never)
  // Held: the open waits for the checks, and refuses nothing before they come.
  options.hold()
  let settled = false
  const refused = open(name, typo, inlineBackground).finally(() => (settled = true))
  await expect.poll(() => options.loads, SOON).toBe(1)
  expect(settled).toBe(false)
  options.release()
  await expect(refused).rejects.toMatchObject({ code: 'INVALID_OPTION', message: 'store "s": unknown option "defaultTTL"; did you mean defaultTtl?' })
  expect(texts.loads).toBe(1)
  // An option given as undefined is a name all the same: an unknown one is refused.
  await expect(open(name, declaring({ keyPath: 'id', ttl: undefined } as never), inlineBackground)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: expect.stringMatching(/^store "s": unknown option "ttl"; /) })
  // Checks that cannot be loaded: the open rejects with why, creates nothing; the next refuses as before.
  const offline = new TypeError('Failed to fetch dynamically imported module')
  options.failNext(offline)
  await expect(open(name, typo, inlineBackground)).rejects.toBe(offline)
  expect(await existing()).not.toContain(name)
  await expect(open(name, typo, inlineBackground)).rejects.toMatchObject({ code: 'INVALID_OPTION', message: 'store "s": unknown option "defaultTTL"; did you mean defaultTtl?' })
})

test('an open whose option checks cannot be loaded rejects with why and creates nothing; the next open loads them and opens', async () => {
  const { open, options, upgrade } = chunks()
  const name = uniqueName()
  const offline = new TypeError('Failed to fetch dynamically imported module')
  options.failNext(offline)
  const declaration = declaring({ keyPath: 'id', defaultTtl: 60, indexes: { byUser: { keyPath: 'user' } } })
  await expect(open(name, declaration, inlineBackground)).rejects.toBe(offline)
  expect(await existing()).not.toContain(name)
  expect(upgrade.loads).toBe(0)
  const db = await open(name, declaration, inlineBackground)
  expect(options.loads).toBe(2)
  expect([...db.raw.transaction('s').store.indexNames]).toContain('byUser')
  db.close()
  await deleteDB(name)
})

test('a database that lacks a declared index or the $ts index of a declared capacity is refused, in the words of before, by the checks loaded for them', async () => {
  const { open, options } = chunks()
  const name = uniqueName()
  const created = await open(name, declaring({ keyPath: 'id', defaultTtl: 60 }), inlineBackground)
  created.close()
  const more = declaring({ keyPath: 'id', defaultTtl: 60, maxEntries: 3, indexes: { byUser: { keyPath: 'user' } } })
  await expect(open(name, more, inlineBackground)).rejects.toMatchObject({
    name: 'TtlError',
    code: 'SCHEMA_MISMATCH',
    message: `database "${name}" version 1 lacks TTL stores or indexes for s (its capacity needs an index over _ts), index "byUser" of store "s": open it with a higher version (2) to create them`,
  })
  expect(options.loads).toBe(1)
  const upgraded = await open(name, { ...more, version: 2 }, inlineBackground)
  expect([...upgraded.raw.transaction('s').store.indexNames].sort()).toEqual(['$ts', '$ttl', 'byUser'])
  upgraded.close()
  await deleteDB(name)
})

/** The settings the database keeps for store `s`. */
async function settingsOf(name: string) {
  const raw = await openDB(name)
  const state = await raw.get('__idb_ttl_meta', 's')
  raw.close()
  return state
}

test('a changed declaration (default, capacity, grace) is applied by the schema work, loaded then; one as declared loads none', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  ;(await open(name, declaring({ keyPath: 'id', defaultTtl: 60, maxEntries: 4 }), inlineBackground)).close()
  expect(upgrade.loads).toBe(1)
  ;(await open(name, declaring({ keyPath: 'id', defaultTtl: 60, maxEntries: 4 }), inlineBackground)).close()
  expect(upgrade.loads).toBe(1)
  const changes: [StoreConfig, object][] = [
    [{ keyPath: 'id', defaultTtl: 120, maxEntries: 4 }, { declared: 120, defaultTtl: 120 }],
    [{ keyPath: 'id', defaultTtl: 120, maxEntries: 8 }, { capacity: { maxEntries: 8, evict: 'oldest', evictOnQuota: false } }],
    [{ keyPath: 'id', defaultTtl: 120, maxEntries: 8, keepExpired: 30 }, { keepExpired: 30 }],
  ]
  let loads = 1
  for (const [config, applied] of changes) {
    const db = await open(name, declaring(config), inlineBackground)
    expect(upgrade.loads, JSON.stringify(config)).toBe(++loads)
    db.close()
    expect(await settingsOf(name)).toMatchObject(applied)
    // Applied: the same declaration again loads nothing more.
    ;(await open(name, declaring(config), inlineBackground)).close()
    expect(upgrade.loads, JSON.stringify(config)).toBe(loads)
  }
  await deleteDB(name)
})

test('an open whose changed declaration cannot be applied for want of the schema work rejects with why, changes nothing; the next open applies it', async () => {
  const { open, upgrade } = chunks()
  const name = uniqueName()
  ;(await open(name, declaring({ keyPath: 'id', defaultTtl: 60 }), inlineBackground)).close()
  const offline = new TypeError('Failed to fetch dynamically imported module')
  upgrade.failNext(offline)
  await expect(open(name, declaring({ keyPath: 'id', defaultTtl: 120 }), inlineBackground)).rejects.toBe(offline)
  expect(await settingsOf(name)).toMatchObject({ declared: 60, defaultTtl: 60 })
  const db = await open(name, declaring({ keyPath: 'id', defaultTtl: 120 }), inlineBackground)
  expect(await db.getDefaultTtl('s')).toBe(120)
  expect(upgrade.loads).toBe(3)
  db.close()
  await deleteDB(name)
})

test('a reopen after an upgrade elsewhere that changed a store\'s key is refused with SCHEMA_MISMATCH in the words of before, loaded then; without them, named by its key', async () => {
  for (const offline of [undefined, new TypeError('Failed to fetch dynamically imported module')]) {
    const { open, texts } = chunks()
    const name = uniqueName()
    const db = await open(name, declaring({ keyPath: 'id', defaultTtl: 60 }), inlineBackground)
    await db.put('s', { id: 1 })
    // Another app version recreates the store with another key; the handle steps aside for it.
    const other = await openDB(name, 2, {
      upgrade(raw) {
        raw.deleteObjectStore('s')
        raw.createObjectStore('s', { keyPath: 'key' }).createIndex('$ttl', '$ttl')
      },
    })
    other.close()
    if (offline) texts.failNext(offline)
    const words = `store "s" of database "${name}" has keyPath "key", declared with keyPath "id": IndexedDB cannot change the key of a store that exists, at any version. Declare it as it is on disk, or declare a store of another name (created with the new key) and copy the items into it.`
    await expect(db.get('s', 1)).rejects.toMatchObject({ name: 'TtlError', code: 'SCHEMA_MISMATCH', message: offline ? 'keyShape' : words })
    expect(texts.loads).toBe(1)
    db.close()
    await deleteDB(name)
  }
})
