// TtlFields in a typed schema: checked by `npm run typecheck` (tsc over test/); the test body
// only needs to run once for Vitest to count it.
import { expect, expectTypeOf, test } from 'vitest'
import type { DBSchema, Stamped, TtlDB, TtlFields } from '../src/index.js'

interface AppDB extends DBSchema {
  sessions: { key: string; value: { id: string; user: string } & TtlFields; indexes: { byUser: string } }
}

/** Never called: what a typed handle accepts and returns, as tsc sees it. */
async function typed(db: TtlDB<AppDB>) {
  await db.put('sessions', { id: 'a', user: 'u1' })
  await db.put('sessions', { id: 'b', user: 'u1', ttl: 60 })
  await db.put('sessions', { id: 'c', user: 'u1', ttl: null })
  // @ts-expect-error a ttl is a number of seconds, not a string
  await db.put('sessions', { id: 'd', user: 'u1', ttl: '60' })
  // @ts-expect-error only declared stores
  await db.put('session', { id: 'e', user: 'u1' })
  const got = await db.get('sessions', 'a')
  expectTypeOf(got).toEqualTypeOf<Stamped<AppDB['sessions']['value']> | undefined>()
  expectTypeOf(got!._ts).toEqualTypeOf<number>()
  expectTypeOf(got!.ttl).toEqualTypeOf<number | null | undefined>()
}

test('TtlFields lets a typed schema carry ttl and _ts (checked by tsc)', () => {
  expect(typeof typed).toBe('function')
})
