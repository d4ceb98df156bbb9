/**
 * SPEC §14: entries without a TTL behave exactly as idb-keyval's, on disk too. A database idb-keyval
 * itself wrote reads the same through idb-ttl/keyval, and idb-keyval reads back what idb-ttl/keyval
 * wrote without a TTL; an entry that expires is stored wrapped (docs/keyval.md, "On disk").
 */
import * as idbKeyval from 'idb-keyval'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import * as keyval from '../../src/keyval.js'
import { createStore, entries, get, getMany, keys, set, setMany, update, values } from '../../src/keyval.js'
import { uniqueName } from '../helpers.js'
import { SECOND, T0 } from '../semantics/support.js'
import { fresh, onDisk } from './support.js'

// The purge never runs here: what is on disk is what the writes left.
beforeEach(() => void vi.stubGlobal('requestIdleCallback', () => 0))
afterEach(() => void vi.unstubAllGlobals())

const VALUES: [IDBValidKey, unknown][] = [
  [1, 'one'],
  ['object', { a: 1, nested: { b: [1, 2] } }],
  ['array', [1, 'two', { three: 3 }]],
  ['date', new Date(T0)],
  ['null', null],
  ['undefined', undefined],
  [[2, 'compound'], 'a compound key'],
  ['wrapper-like', { v: 'not ours', other: true }],
  ['field-not-a-number', { 'idb-ttl': 'a string', v: 1 }],
]

test('a database idb-keyval wrote (its store "keyval") reads the same through every call', async () => {
  const name = uniqueName('idb-keyval')
  const theirs = idbKeyval.createStore(name, 'keyval')
  await idbKeyval.setMany(VALUES, theirs)
  const ours = createStore(name, 'keyval', { defaultTtl: 60 })
  expect(await entries(ours)).toEqual(await idbKeyval.entries(theirs))
  expect(await keys(ours)).toEqual(await idbKeyval.keys(theirs))
  expect(await values(ours)).toEqual(await idbKeyval.values(theirs))
  expect(await getMany(VALUES.map(([key]) => key), ours)).toEqual(VALUES.map(([, value]) => value))
  // Its plain values carry no expiry: they never expire, whatever the store's default.
  const later = createStore(name, 'keyval', { defaultTtl: 1, clock: () => Date.now() + 1e9 * SECOND })
  expect(await get('object', later)).toEqual({ a: 1, nested: { b: [1, 2] } })
  await update(1, (old) => `${old}!`, ours)
  expect(await idbKeyval.get(1, theirs)).toEqual({ 'idb-ttl': expect.any(Number), v: 'one!' })
})

test('what idb-ttl/keyval writes without a TTL is stored as idb-keyval stores it, and idb-keyval reads it back', async () => {
  const { store, name } = fresh()
  await setMany(VALUES, store)
  await set('ttl -1', 'forever', { ttl: -1, store })
  const theirs = idbKeyval.createStore(name, 'kv')
  expect(await idbKeyval.entries(theirs)).toEqual(await entries(store))
  expect(await onDisk(name)).toEqual(await entries(store))
})

test('an entry that expires is stored as { "idb-ttl": expiresAtMs, v: value }', async () => {
  const { store, name, clock } = fresh({ defaultTtl: 60 })
  clock.set(T0 + 500)
  await set('own', { x: 1 }, { ttl: 10, store })
  await set('inherits', 'y', store)
  expect(await onDisk(name)).toEqual([
    ['inherits', { 'idb-ttl': T0 + 60 * SECOND, v: 'y' }],
    ['own', { 'idb-ttl': T0 + 10 * SECOND, v: { x: 1 } }],
  ])
})

test('a value that looks like a stored entry is escaped when written without a TTL, and read back as it was', async () => {
  const { store, name, clock } = fresh()
  const lookalike = { 'idb-ttl': T0, v: 'mine' }
  await set('a', lookalike, store)
  expect(await onDisk(name)).toEqual([['a', { 'idb-ttl': Infinity, v: lookalike }]])
  clock.advance(1e9 * SECOND)
  expect(await get('a', store)).toEqual(lookalike)
  expect(await entries(store)).toEqual([['a', lookalike]])
})

test('a store written for idb-keyval (its UseStore) works with every call, ttl included', async () => {
  const name = uniqueName('custom')
  const custom: idbKeyval.UseStore = idbKeyval.createStore(name, 'custom')
  await set('a', 1, custom)
  await set('b', 2, { ttl: 3600, store: custom })
  expect(await entries(custom)).toEqual([['a', 1], ['b', 2]])
  expect(await onDisk(name, 'custom')).toEqual([
    ['a', 1],
    ['b', { 'idb-ttl': expect.any(Number), v: 2 }],
  ])
})

test('every export of idb-keyval is here, with a signature that takes the same calls (the assignment is checked by tsc)', () => {
  const sameApi: typeof idbKeyval = keyval
  expect(Object.keys(idbKeyval).filter((name) => !(name in sameApi))).toEqual([])
})
