// The write of owed touches when another page wrote the item, or changed a setting, between a
// read in this page and the write of its touch (in one page that cannot happen: a write or a
// change of setting writes the page's touches first). The same scenarios across two realms of
// Node are in test/semantics/touch-realms.node.test.ts.
import { afterEach, test } from 'vitest'
import type { TtlDB } from '../../src/index.js'
import { freshDB, manualClock, uniqueName } from '../helpers.js'
import { touchSparesItemShorterDefaultKilled, touchSparesKilledItem, touchSparesLaterWrite } from '../semantics/support.js'
import { openPage } from './pages.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true } }

const opened: TtlDB<any>[] = []
afterEach(() => opened.splice(0).forEach((db) => db.close()))

/** A handle in this page (the reader) and one in another page, on one clock. */
async function twoPages(prefix: string) {
  const clock = manualClock()
  const name = uniqueName(prefix)
  const reader = await freshDB({ clock, stores }, name)
  const page = await openPage()
  const other = await page.lib.openTtlDB(name, { version: 1, clock, stores, purge: { mode: 'off' } })
  opened.push(other)
  return { clock, reader, other }
}

test('a touch written after another page rewrote the item does not lower its _ts', async ({ skip }) => {
  const { clock, reader, other } = await twoPages('touch-later-write')
  await touchSparesLaterWrite(reader, other, clock, skip)
})

test('a touch written after another page changed the default does not revive the item the change left dead', async ({ skip }) => {
  const { clock, reader, other } = await twoPages('touch-killed')
  await touchSparesKilledItem(reader, other, clock, skip)
})

test('a touch written after another page shortened the default does not revive the item the new default killed', async ({ skip }) => {
  const { clock, reader, other } = await twoPages('touch-shortened')
  await touchSparesItemShorterDefaultKilled(reader, other, clock, skip)
})
