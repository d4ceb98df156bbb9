// Promises over IndexedDB requests (src/request.ts).
import { deleteDB, openDB, unwrap } from 'idb'
import { expect, test } from 'vitest'
import { req } from '../src/platform/request.js'
import { uniqueName } from './helpers.js'

test('requests a failing operation never awaited do not surface as unhandled rejections when their transaction aborts', async () => {
  const unhandled: unknown[] = []
  const record = (reason: unknown) => unhandled.push(reason)
  const onEvent = (event: PromiseRejectionEvent) => record(event.reason)
  const nodeProcess = (globalThis as { process?: NodeJS.Process }).process
  nodeProcess?.on?.('unhandledRejection', record)
  globalThis.addEventListener?.('unhandledrejection', onEvent)
  const name = uniqueName('request')
  const raw = await openDB(name, 1, { upgrade: (db) => void db.createObjectStore('s') })
  try {
    const tx = unwrap(raw).transaction('s', 'readonly')
    const first = req(tx.objectStore('s').get(1))
    req(tx.objectStore('s').get(2)) // never awaited, as when the operation fails on the first
    tx.abort()
    await expect(first).rejects.toMatchObject({ name: 'AbortError' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(unhandled).toEqual([])
  } finally {
    nodeProcess?.off?.('unhandledRejection', record)
    globalThis.removeEventListener?.('unhandledrejection', onEvent)
    raw.close()
    await deleteDB(name)
  }
})
