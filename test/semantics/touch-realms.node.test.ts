/**
 * The write of owed touches (src/reads/touch.ts, `write`) when another tab wrote the item, or
 * changed a setting, between a read and the write of its touch. In one realm that cannot happen:
 * a write or a change of setting writes the realm's touches first. Across two realms (two tabs) it
 * can: each test imports a second copy of the library with vi.resetModules, which only Node
 * offers. The same scenarios across two real pages are in test/browser/touch-tabs.test.ts.
 */
import { expect, test, vi } from 'vitest'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { manualClock, uniqueName } from '../helpers.js'
import { holdOpenUntil } from '../waits.js'
import { deleteAfter, T0, touchSparesItemShorterDefaultKilled, touchSparesKilledItem, touchSparesLaterWrite } from './support.js'

const stores = { s: { keyPath: 'id', defaultTtl: 10, touchOnRead: true }, other: { keyPath: 'id', defaultTtl: 10 } }

/** A handle in this realm (the reader) and one in a second realm (the other tab), on one clock. */
async function twoRealms(prefix: string) {
  const name = deleteAfter(uniqueName(prefix))
  const clock = manualClock(T0)
  const reader = await openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  vi.resetModules()
  const other = (await import('../../src/index.js')) as typeof import('../../src/index.js')
  const tab = await other.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  return { clock, reader, tab: tab as TtlDB<any> }
}

test('a touch written after another tab rewrote the item does not lower its _ts', async ({ skip }) => {
  const { clock, reader, tab } = await twoRealms('touch-later-write')
  try {
    await touchSparesLaterWrite(reader, tab, clock, skip)
  } finally {
    reader.close()
    tab.close()
  }
})

test('a touch written after another tab changed the default does not revive the item the change left dead', async ({ skip }) => {
  const { clock, reader, tab } = await twoRealms('touch-killed')
  try {
    await touchSparesKilledItem(reader, tab, clock, skip)
  } finally {
    reader.close()
    tab.close()
  }
})

test('a touch written after another tab shortened the default does not revive the item the new default killed', async ({ skip }) => {
  const { clock, reader, tab } = await twoRealms('touch-shortened')
  try {
    await touchSparesItemShorterDefaultKilled(reader, tab, clock, skip)
  } finally {
    reader.close()
    tab.close()
  }
})

test("touches owed while another tab's transaction holds their store do not delay reads of other stores (SPEC §11)", async () => {
  const { clock, reader, tab } = await twoRealms('touch-beside')
  try {
    await reader.put('s', { id: 'a' })
    await reader.put('other', { id: 1 })
    clock.advance(1000)
    await reader.get('s', 'a') // owes a touch
    let resolved = false
    const outcome = await tab.transaction('s', 'readwrite', async (tx) => {
      // The reader's put writes the touch it owes first; both wait for this transaction (another
      // tab's: the reader's own would have written it first). Reads of another store must not.
      const written = reader.put('s', { id: 'b' })
      for (let i = 0; i < 3; i++) await tx.get('s', 'a')
      const read = reader.get('other', 1).finally(() => (resolved = true))
      const whileOpen = await holdOpenUntil(() => tx.get('s', 'a'), () => resolved)
      return { whileOpen, written, read }
    })
    expect(outcome.whileOpen).toBe(true)
    await outcome.written
    expect(await outcome.read).toMatchObject({ id: 1 })
    expect(await tab.raw.get('s', 'a'), 'the touch written').toMatchObject({ _ts: T0 / 1000 + 1 })
  } finally {
    reader.close()
    tab.close()
  }
})
