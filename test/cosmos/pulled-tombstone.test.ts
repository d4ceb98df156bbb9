/**
 * SPEC §12 "Conflicts": a conflict is a server copy changed since the mirror was last in step
 * with it. A tombstone the mirror pulled is such a copy (its base): a local write of the key made
 * after it replaces it on the condition that it is still that tombstone, with no conflict.
 *
 * Found by the property (property.node.test.ts, seed 114480832): a pull that compares ids (a
 * full pull, or the re-read after the device's clock was found further off) forgot the base of
 * every key the server holds as a tombstone, since its list has live items only. A later local
 * write of the key then went as a create, met the tombstone (409) and was a conflict, which
 * last writer wins could decide for the tombstone: the device's clock stepped ahead between the
 * write and the push, so the write seemed older than the delete it was made after. In Node and in
 * every browser project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import { syncCosmos, type Conflict } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

test('a local write over a tombstone the mirror pulled replaces it with no conflict, after a pull that compares ids too', async () => {
  const ways = {
    'another pull': () => sync.pull(),
    'a full pull': () => sync.pull({ full: true }),
    // The device's clock found 5 s further ahead: the pull reads the container again, ids compared.
    'a pull after the clock moved': () => (clock.advance(5000), sync.pull()),
  }
  let clock = aheadClock()
  let sync: ReturnType<typeof syncCosmos>
  for (const [way, between] of Object.entries(ways)) {
    const { container } = await newContainer(port, -1)
    // Another mirror deleted d: its tombstone.
    await container.items.upsert({ id: 'd', tenant: 't1', _idbTtlDeleted: true, ttl: 60 })
    clock = aheadClock()
    const db = await openMirror(clock)
    const asked: Conflict[] = []
    // A conflict, were there one, would keep the tombstone.
    sync = syncCosmos(db, 'items', container, { partitionKey: 't1', onConflict: (conflict) => (asked.push(conflict), 'server') })
    try {
      await sync.pull()
      await between()
      await db.put('items', { id: 'd', n: 1 })
      await sync.push()
      expect(asked, way).toEqual([])
      const { resource } = await container.item('d', 't1').read()
      expect(resource, way).toMatchObject({ id: 'd', tenant: 't1', n: 1 })
      expect(resource, way).not.toHaveProperty('_idbTtlDeleted')
      expect(await db.get('items', 'd'), way).toMatchObject({ n: 1, _etag: resource._etag })
    } finally {
      sync.stop()
      db.close()
    }
  }
})
