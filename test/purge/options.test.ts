// Purge tuning: absent and undefined both mean "the default"; malformed values are refused.
import { expect, test } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { freshDB, uniqueName } from '../helpers.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10 } }

test('purge options given as undefined mean their defaults', async () => {
  const db = await freshDB({
    stores,
    purge: { mode: undefined, batchSize: undefined, sliceMs: undefined, maxIntervalMs: undefined, idleTimeoutMs: undefined },
  })
  await db.put('s', { id: 'a' })
  expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
})

test.for([
  { option: 'batchSize', value: 0 },
  { option: 'batchSize', value: 2.5 },
  { option: 'sliceMs', value: -1 },
  { option: 'maxIntervalMs', value: Number.NaN },
  { option: 'idleTimeoutMs', value: null },
  { option: 'mode', value: 'sometimes' },
])('purge.$option = $value is refused with INVALID_OPTION', async ({ option, value }) => {
  await expect(openTtlDB(uniqueName('bad-purge'), { version: 1, stores, purge: { [option]: value } })).rejects.toMatchObject({
    name: 'TtlError',
    code: 'INVALID_OPTION',
  })
})
