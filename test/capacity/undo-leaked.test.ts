// undoLeaked (src/purge/undo-leaked.ts): Firefox, at its quota, keeps part of a transaction it reports
// aborted. The copies it kept are found by their expiry mark and told from the other items of
// their second, which share the mark, by their write order and writer (the realm): only the leaked
// ones are deleted.
import { unwrap } from 'idb'
import { expect, test } from 'vitest'
import { check, stampAt } from '../../src/layout/stamp.js'
import { undoLeaked } from '../../src/purge/undo-leaked.js'
import { freshDB, manualClock } from '../helpers.js'

test('the copies a refused write left behind are deleted; items written in the same second are not', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
  await db.putAll('s', [{ id: 'before' }, { id: 'also-before', ttl: 60 }])
  // What the refused transaction wrote, stamped in the same millisecond as the items above.
  const leaked = [{ id: 'leaked' }, { id: 'leaked-own', ttl: 60 }].map((value) => stampAt(check(value, 'strict', 'store "s"'), clock.now))
  for (const value of leaked) await db.raw.put('s', value as never)
  clock.advance(500)
  await db.put('s', { id: 'after' })

  await undoLeaked(unwrap(db.raw), 's', leaked)
  expect((await db.raw.getAllKeys('s')).sort()).toEqual(['after', 'also-before', 'before'])
})

test("an item another realm (tab) wrote in the same millisecond is not taken for a leaked copy", async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, stores: { s: { keyPath: 'id', defaultTtl: 60 } } })
  const [leaked] = [{ id: 'leaked' }].map((value) => stampAt(check(value, 'strict', 'store "s"'), clock.now))
  // Another realm's write of the same millisecond: the same second, mark and write order.
  const theirs = { ...stampAt(check({ id: 'theirs' }, 'strict', 'store "s"'), clock.now), $at: leaked.$at, $by: (leaked.$by as number) + 1 }
  for (const value of [leaked, theirs]) await db.raw.put('s', value as never)
  await undoLeaked(unwrap(db.raw), 's', [leaked])
  expect(await db.raw.getAllKeys('s')).toEqual(['theirs'])
})
