// Promises over IndexedDB requests (src/request.ts).
import { deleteDB, openDB, unwrap } from 'idb'
import { expect, test } from 'vitest'
import { req } from '../src/platform/request.js'
import { uniqueName } from './helpers.js'
import { unhandledDuring } from './semantics/support.js'

test('requests a failing operation never awaited do not surface as unhandled rejections when their transaction aborts', async () => {
  const name = uniqueName('request')
  const raw = await openDB(name, 1, { upgrade: (db) => void db.createObjectStore('s') })
  try {
    const unhandled = await unhandledDuring(async () => {
      const tx = unwrap(raw).transaction('s', 'readonly')
      // The abort event comes after every request of the transaction has failed.
      const aborted = new Promise((resolve) => tx.addEventListener('abort', resolve))
      const first = req(tx.objectStore('s').get(1))
      req(tx.objectStore('s').get(2)) // never awaited, as when the operation fails on the first
      tx.abort()
      await expect(first).rejects.toMatchObject({ name: 'AbortError' })
      await aborted
    })
    expect(unhandled).toEqual([])
  } finally {
    raw.close()
    await deleteDB(name)
  }
})
