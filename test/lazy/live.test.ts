// Issue #44: what runs a subscribed live query (live/subscribers.ts with follow.ts, result.ts and
// hearing.ts) is loaded by the page entries at a handle's first subscription; `db.live` and
// `subscribe` stay synchronous, the query keeping its subscribers meanwhile (live/query.ts). A
// chunk that cannot be loaded fails those subscriptions only, and the next one loads it again.
import { expect, test } from 'vitest'
import { uniqueName } from '../helpers.js'
import { chunks, SOON } from './loaders.js'

const ids = (items: unknown[]) => items.map((item) => (item as { id: number }).id)

test('subscribers made while the chunk loads get their first result in the order they subscribed, a write made meanwhile in it; one that unsubscribed meanwhile gets none', async () => {
  const { open, follow } = chunks()
  const db = await open(uniqueName(), {})
  await db.put('s', { id: 1 })
  follow.hold()
  const query = db.live('s')
  const seen: string[] = []
  query.subscribe((items) => seen.push(`a:${ids(items)}`))
  const offB = query.subscribe({ next: (items) => seen.push(`b:${ids(items)}`) })
  query.subscribe({ next: (items) => seen.push(`c:${ids(items)}`) })
  offB()
  await expect.poll(() => follow.loads, SOON).toBe(1)
  await db.put('s', { id: 2 })
  expect(query.getSnapshot()).toBeUndefined()
  follow.release()
  await expect.poll(() => seen, SOON).toEqual(['a:1,2', 'c:1,2'])
  expect(query.getSnapshot()?.map((item) => item.id)).toEqual([1, 2])
  // Loaded: a later subscriber of the query gets what it holds at once, synchronously.
  query.subscribe((items) => seen.push(`d:${ids(items)}`))
  expect(seen.at(-1)).toBe('d:1,2')
  await db.put('s', { id: 3 })
  await expect.poll(() => seen.slice(-3), SOON).toEqual(['a:1,2,3', 'c:1,2,3', 'd:1,2,3'])
  expect(follow.loads).toBe(1)
  db.close()
})

test('a live query whose chunk cannot be loaded tells its subscribers why, and the next subscription loads it again and follows writes', async () => {
  const { open, follow } = chunks()
  const db = await open(uniqueName(), {})
  await db.put('s', { id: 1 })
  const offline = new TypeError('Failed to fetch dynamically imported module')
  follow.failNext(offline)
  const query = db.live('s')
  const errors: unknown[] = []
  const results: number[][] = []
  query.subscribe({ next: (items) => results.push(ids(items)), error: (error) => errors.push(error) })
  query.subscribe({ next: (items) => results.push(ids(items)), error: (error) => errors.push(error) })
  await expect.poll(() => errors, SOON).toEqual([offline, offline])
  expect(results).toEqual([])
  query.subscribe((items) => results.push(ids(items)))
  await expect.poll(() => results, SOON).toEqual([[1]])
  await db.put('s', { id: 2 })
  await expect.poll(() => results, SOON).toEqual([[1], [1, 2]])
  expect(follow.loads).toBe(2)
  db.close()
})

test('iterating a live query waits for the chunk; one whose chunk cannot be loaded rejects with why, then ends, and a new iteration loads it again', async () => {
  const { open, follow } = chunks()
  const db = await open(uniqueName(), {})
  await db.put('s', { id: 1 })
  const offline = new TypeError('Failed to fetch dynamically imported module')
  follow.failNext(offline)
  const failing = db.live('s')[Symbol.asyncIterator]()
  await expect(failing.next()).rejects.toBe(offline)
  await expect(failing.next()).resolves.toEqual({ value: undefined, done: true })
  follow.hold()
  const iterator = db.live('s')[Symbol.asyncIterator]()
  const first = iterator.next()
  await expect.poll(() => follow.loads, SOON).toBe(2)
  await db.put('s', { id: 2 })
  follow.release()
  expect(ids((await first).value!)).toEqual([1, 2])
  const second = iterator.next()
  await db.put('s', { id: 3 })
  expect(ids((await second).value!)).toEqual([1, 2, 3])
  await expect(iterator.return!()).resolves.toEqual({ value: undefined, done: true })
  await expect(iterator.next()).resolves.toEqual({ value: undefined, done: true })
  db.close()
})

test('a subscriber of a closed handle completes at once, and nothing loads', async () => {
  const { open, follow } = chunks()
  const db = await open(uniqueName(), {})
  const query = db.live('s')
  db.close()
  const events: string[] = []
  query.subscribe({ next: () => events.push('next'), complete: () => events.push('complete') })
  expect(events).toEqual(['complete'])
  expect(follow.loads).toBe(0)
})
