// A transaction's claim of a dead item's key tells the expiry listeners, which idb-ttl's first load
// holds: whether or not the calls' chunk loads, the event is heard and nothing is left unhandled
// (idb-ttl/core publishes with the calls' chunk, which its claims loaded). Found by review.
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { manualClock, uniqueName } from '../helpers.js'
import { chunks, SOON } from './loaders.js'
import { unhandledDuring } from '../semantics/support.js'
import type { ExpireEvent } from '../../src/index.js'

test('a transaction claiming a dead item while the calls chunk cannot load: heard, nothing unhandled', async () => {
  const { open, calls } = chunks()
  const clock = manualClock()
  const name = uniqueName()
  const db = await open(name, { clock })
  await db.put('s', { id: 1, ttl: 1 })
  clock.advance(2_000)
  const heard: ExpireEvent[] = []
  db.onExpire((e) => heard.push(e))
  calls.failNext(new TypeError('Failed to fetch dynamically imported module'))
  const unhandled = await unhandledDuring(async () => {
    await db.transaction('s', 'readwrite', (tx) => tx.add('s', { id: 1 }))
    await expect.poll(() => heard.flatMap((e) => e.items.map((i) => i.key)), SOON).toEqual([1])
  })
  expect(unhandled).toEqual([])
  db.close()
  await deleteDB(name)
})
