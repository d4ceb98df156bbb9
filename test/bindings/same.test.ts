// src/bindings/same.ts: options objects compared by value, keys as IndexedDB compares them, so an
// inline literal starts no new query and a different key always does.
import { expect, test } from 'vitest'
import { sameOptions } from '../../src/bindings/same.js'

test('equal options written anew are the same query', () => {
  expect(sameOptions(undefined, undefined)).toBe(true)
  expect(sameOptions({ index: 'byUser', query: 'u1', count: 5 }, { count: 5, query: 'u1', index: 'byUser' })).toBe(true)
  expect(sameOptions({ query: [1, 'a', new Date(5)] }, { query: [1, 'a', new Date(5)] })).toBe(true)
  expect(sameOptions({ query: new Uint8Array([1, 2]) }, { query: new Uint8Array([1, 2]) })).toBe(true)
  expect(sameOptions({ query: new Uint8Array([1, 2]).buffer }, { query: new Uint8Array([1, 2]).buffer })).toBe(true)
  expect(sameOptions({ query: IDBKeyRange.bound(1, 5, false, true) }, { query: IDBKeyRange.bound(1, 5, false, true) })).toBe(true)
})

test('options that differ in any key, bound or option are another query', () => {
  expect(sameOptions(undefined, {})).toBe(false)
  expect(sameOptions({ query: 'u1' }, { query: 'u2' })).toBe(false)
  expect(sameOptions({ query: 'u1' }, { query: 'u1', count: 1 })).toBe(false)
  expect(sameOptions({ query: 1 }, { query: '1' })).toBe(false)
  expect(sameOptions({ query: new Date(5) }, { query: new Date(6) })).toBe(false)
  expect(sameOptions({ query: new Date(5) }, { query: 5 })).toBe(false)
  expect(sameOptions({ query: [1, 2] }, { query: [1, 2, 3] })).toBe(false)
  expect(sameOptions({ query: new Uint8Array([1, 2]) }, { query: new Uint8Array([1, 3]) })).toBe(false)
  expect(sameOptions({ query: IDBKeyRange.bound(1, 5) }, { query: IDBKeyRange.bound(1, 5, true) })).toBe(false)
  expect(sameOptions({ query: IDBKeyRange.lowerBound(1) }, { query: IDBKeyRange.lowerBound(2) })).toBe(false)
  expect(sameOptions({ query: IDBKeyRange.only(1) }, { query: 1 })).toBe(false)
})
