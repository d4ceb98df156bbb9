// idb-ttl/core's notices (src/live/lazy-notices.ts): made at a handle's first change, with the code
// loaded then; what they tell, and in what order, is what notices made at once tell.
import { expect, test } from 'vitest'
import { lazyNotices } from '../../src/live/lazy-notices.js'
import type { Presence as Notices } from '../../src/live/notices.js'

/** A load of `notices.ts` whose Presence records what it is told, resolved or failed when the test says. */
function loading() {
  const told: string[] = []
  const made: string[] = []
  const loads: { resolve: () => void; reject: (error: Error) => void }[] = []
  class Presence {
    constructor(name: string) {
      made.push(name)
    }
    changed(stores: readonly string[]) {
      told.push(`changed ${stores.join(',')}`)
    }
    close() {
      told.push('close')
    }
  }
  const load = () =>
    new Promise<typeof Notices>((resolve, reject) => {
      loads.push({ resolve: () => resolve(Presence as unknown as typeof Notices), reject })
    })
  return { told, made, loads, load }
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0))

test('changes made while the notices load are told in order, by one Presence, once it loaded', async () => {
  const { told, made, loads, load } = loading()
  const notices = lazyNotices('db', load)
  expect(loads).toHaveLength(0)
  notices.changed(['a'])
  notices.changed(['b'])
  notices.changed(['a', 'b'])
  expect(loads).toHaveLength(1)
  expect(told).toEqual([])
  loads[0].resolve()
  await settled()
  expect(made).toEqual(['db'])
  expect(told).toEqual(['changed a', 'changed b', 'changed a,b'])
  notices.changed(['c'])
  await settled()
  expect(told.at(-1)).toBe('changed c')
  expect(loads).toHaveLength(1)
})

test('a change whose notices failed to load is lost, and the next change loads them again', async () => {
  const { told, made, loads, load } = loading()
  const notices = lazyNotices('db', load)
  notices.changed(['a'])
  loads[0].reject(new Error('offline'))
  await settled()
  expect(told).toEqual([])
  notices.changed(['b'])
  expect(loads).toHaveLength(2)
  loads[1].resolve()
  await settled()
  expect(made).toEqual(['db'])
  expect(told).toEqual(['changed b'])
})

test('close() closes the notices once loaded; a change after it is told to this realm, then they close again', async () => {
  const { told, loads, load } = loading()
  const notices = lazyNotices('db', load)
  notices.close()
  expect(loads).toHaveLength(0)
  notices.changed(['a'])
  loads[0].resolve()
  await settled()
  expect(told).toEqual(['changed a', 'close'])
  const later = loading()
  const open = lazyNotices('db', later.load)
  open.changed(['a'])
  open.close()
  later.loads[0].resolve()
  await settled()
  expect(later.told).toEqual(['changed a', 'close'])
})
