// A call queued behind an earlier one on its store (`handle/turns.ts`) creates its transaction
// only once that one created its own: a close() meanwhile must fail it as closed, like every call
// that meets a closed handle, not with IndexedDB's bare InvalidStateError from a connection it
// took before it waited.
import { expect, test } from 'vitest'
import { freshDB } from '../helpers.js'

const stores = { plain: { keyPath: 'id', defaultTtl: 60 } } as const

test('get and getAll queued behind a put not awaited reject CLOSED when the handle closes before their turn', async () => {
  const db = await freshDB({ stores })
  await db.put('plain', { id: 1 })
  const put = db.put('plain', { id: 2 })
  const get = db.get('plain', 1)
  const all = db.getAll('plain')
  db.close()
  await expect(put).rejects.toMatchObject({ code: 'CLOSED' })
  await expect(get).rejects.toMatchObject({ code: 'CLOSED' })
  await expect(all).rejects.toMatchObject({ code: 'CLOSED' })
}, 5000)

test('a delete and a clear queued behind a put not awaited reject CLOSED when the handle closes before their turn', async () => {
  const db = await freshDB({ stores })
  await db.put('plain', { id: 1 })
  const put = db.put('plain', { id: 2 })
  const remove = db.delete('plain', 1)
  const clear = db.clear('plain')
  db.close()
  await expect(put).rejects.toMatchObject({ code: 'CLOSED' })
  await expect(remove).rejects.toMatchObject({ code: 'CLOSED' })
  await expect(clear).rejects.toMatchObject({ code: 'CLOSED' })
}, 5000)
