// layout/connection.ts: an open first tries the database as it is, without a version (as
// idb-keyval does), and loads the schema work (layout/upgrade.ts, a chunk of its own in the page
// entries: issue #44) only when the database must be created or upgraded, or the open failed.
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { Connection, type SchemaWork } from '../../src/layout/connection.js'
import { JOURNAL_STORE, META_STORE } from '../../src/layout/expiry-index.js'
import { checkSchema, type StoreConfigs } from '../../src/layout/schema.js'
import * as upgradeWork from '../../src/layout/upgrade.js'
import * as texts from '../../src/rules/texts.js'
import { uniqueName } from '../helpers.js'

const stores: StoreConfigs = { s: { keyPath: 'id', defaultTtl: 10 } }

/** Opens `name` at `version` with `declared`; resolves to how many times the schema work was loaded, and the open's outcome. */
async function open(name: string, version: number | undefined, declared = stores) {
  let loads = 0
  const schema: SchemaWork = { checkSchema, upgrade: async () => (loads++, upgradeWork), texts: async () => texts }
  const connection = new Connection({ name, version, stores: declared, clock: Date.now, schema })
  try {
    const db = await connection.native()
    return { loads, version: db.version, stores: [...db.objectStoreNames].sort() }
  } catch (error) {
    return { loads, error: error as Error }
  } finally {
    connection.close()
  }
}

test('a database as declared opens without the schema work; creating it, upgrading it or a version below the one on disk loads it first, once', async () => {
  const name = uniqueName()
  expect(await open(name, 1)).toEqual({ loads: 1, version: 1, stores: [JOURNAL_STORE, META_STORE, 's'].sort() })
  expect(await open(name, 1)).toEqual({ loads: 0, version: 1, stores: [JOURNAL_STORE, META_STORE, 's'].sort() })
  expect(await open(name, undefined)).toEqual({ loads: 0, version: 1, stores: [JOURNAL_STORE, META_STORE, 's'].sort() })
  const added = { ...stores, t: { defaultTtl: 5 } }
  expect(await open(name, 2, added)).toEqual({ loads: 1, version: 2, stores: [JOURNAL_STORE, META_STORE, 's', 't'].sort() })
  const lower = await open(name, 1, added)
  expect(lower.loads).toBe(1)
  expect(lower.error).toMatchObject({ name: 'VersionError', message: expect.stringContaining('the database on disk has a higher version') })
  await deleteDB(name)
})

test('a declaration the database lacks at its version is refused with SCHEMA_MISMATCH, without the schema work', async () => {
  const name = uniqueName()
  await open(name, 1)
  const result = await open(name, 1, { ...stores, missing: { defaultTtl: 5 } })
  expect(result.loads).toBe(0)
  expect(result.error).toMatchObject({ name: 'TtlError', code: 'SCHEMA_MISMATCH', message: expect.stringContaining('missing') })
  await deleteDB(name)
})

test('no database yet and no version declared: the schema work creates it at version 1', async () => {
  const name = uniqueName()
  expect(await open(name, undefined)).toEqual({ loads: 1, version: 1, stores: [JOURNAL_STORE, META_STORE, 's'].sort() })
  await deleteDB(name)
})
