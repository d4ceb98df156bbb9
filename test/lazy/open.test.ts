// Issue #44: what an open loads on first use, in the page entries (assembly/open-full.ts,
// assembly/open.ts, layout/connection.ts): the watch of onLost and bucket.expiresAfterItems, the
// schema work (after a first open without a version), the storage work. A chunk that cannot be
// loaded fails that open, with why, and leaves nothing of it running; the next open loads it again.
import { deleteDB, openDB } from 'idb'
import { expect, test } from 'vitest'
import type { MakeBackground } from '../../src/background/background.js'
import { inlineBackground } from '../../src/background/inline.js'
import { uniqueName } from '../helpers.js'
import { chunks } from './loaders.js'

/** The inline background, counting the handles made and closed. */
function counted() {
  const handles = { made: 0, closed: 0 }
  const made: MakeBackground = (options) => {
    handles.made++
    const background = inlineBackground(options)
    const close = background.close.bind(background)
    background.close = () => (handles.closed++, close())
    return background
  }
  return { handles, made }
}

test('an open with onLost whose watch cannot be loaded rejects with why and leaves no handle open behind it; the next open loads it', async () => {
  const { open, watch } = chunks()
  const { handles, made } = counted()
  const name = uniqueName()
  const offline = new TypeError('Failed to fetch dynamically imported module')
  watch.failNext(offline)
  await expect(open(name, { onLost: () => {} }, made)).rejects.toBe(offline)
  expect(handles).toEqual({ made: 1, closed: 1 })
  const db = await open(name, { onLost: () => {} }, made)
  await db.put('s', { id: 1 })
  expect(watch.loads).toBe(2)
  db.close()
  await deleteDB(name)
})
