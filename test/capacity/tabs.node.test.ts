/**
 * Generations (SPEC §9, README "Capacity and quota") across two realms (two tabs): each test
 * imports a second copy of the library with vi.resetModules, which only Node offers, so that
 * each tab has its own idea of the store's current generation. Node project only.
 */
import { expect, test, vi } from 'vitest'
import { openTtlDB } from '../../src/index.js'
import { deleteAfter, T0 } from '../semantics/support.js'
import { manualClock, uniqueName } from '../helpers.js'
import { smallDisk } from './disk.js'

test('a tab whose current generation another tab has moved past moves on too: no generation grows beyond its share', async () => {
  // A quota of 400 × 256 bytes: a generation takes a sixteenth of it, 6,400 bytes; the write
  // that brings it there (the fourth of these values of about 2,060 bytes) starts the next.
  smallDisk(400)
  const value = (id: string) => ({ id, body: 'x'.repeat(1_000) })
  const name = deleteAfter(uniqueName('gen-tabs'))
  const stores = { s: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true } }
  const clock = manualClock(T0)
  const a = await openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  await a.put('s', value('a0')) // tab A writes into generation 0
  vi.resetModules()
  const other = (await import('../../src/index.js')) as typeof import('../../src/index.js')
  const b = await other.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  try {
    for (let i = 0; i < 6; i++) await b.put('s', value(`b${i}`)) // tab B fills generation 0 and moves on
    for (let i = 1; i <= 10; i++) await a.put('s', value(`a${i}`))
    const rows = (await a.raw.getAll('s')) as { id: string; $gen: { g: number } }[]
    const perGeneration = new Map<number, string[]>()
    for (const row of rows) perGeneration.set(row.$gen.g, [...(perGeneration.get(row.$gen.g) ?? []), row.id])
    // Four values fill a generation; one more may land in it from a tab that had not yet seen
    // that it was full, and that tab moves on. (Before, tab A kept writing into generation 0,
    // which held 14 values, and no eviction could empty it while A went on filling it.)
    for (const [g, ids] of perGeneration) expect(ids.length, `generation ${g} holds ${ids.join(', ')}`).toBeLessThanOrEqual(5)
  } finally {
    a.close()
    b.close()
  }
})
