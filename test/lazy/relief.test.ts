// Issue #44: the steps of quota relief (purge/relief.ts) are loaded by the page entries with
// `import()` at the first write refused for lack of space. Where they cannot be loaded, that write
// rejects as one that never fits does (SPEC §9: the original QuotaExceededError, nothing written);
// the next write refused loads them again.
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { smallDisk } from '../capacity/disk.js'
import { uniqueName } from '../helpers.js'
import { chunks } from './loaders.js'

test('a write at a full disk whose relief cannot be loaded rejects with the original QuotaExceededError and writes nothing; the next loads it and fits', async () => {
  const { open, relief } = chunks()
  const disk = smallDisk(3)
  const name = uniqueName()
  const db = await open(name, { purge: { mode: 'inline' }, stores: { s: { keyPath: 'id', defaultTtl: 60, evictOnQuota: true } } })
  for (let id = 0; disk.room > 0; id++) await db.put('s', { id })
  relief.failNext(new TypeError('Failed to fetch dynamically imported module'))
  await expect(db.put('s', { id: 'over' })).rejects.toMatchObject({ name: 'QuotaExceededError' })
  expect(await db.get('s', 'over')).toBeUndefined()
  await db.put('s', { id: 'over' })
  expect(relief.loads).toBe(2)
  expect(await db.get('s', 'over')).toMatchObject({ id: 'over' })
  db.close()
  await deleteDB(name)
})
