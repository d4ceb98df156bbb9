// The bindings are typed from the database's schema as `db.live` is: the item type follows the
// store name, index names and queries are checked. Checked by `npm run typecheck` (tsc over
// test/); the test body only needs to run once for Vitest to count it.
import { expect, expectTypeOf, test } from 'vitest'
import type { Ref } from 'vue'
import type { Readable } from 'svelte/store'
import type { DBSchema, Stamped, TtlDB, TtlFields } from '../../src/index.js'
import { useLive as useLiveReact, useLiveItem } from '../../src/react.js'
import { useLive as useLiveVue } from '../../src/vue.js'
import { live } from '../../src/svelte.js'

interface AppDB extends DBSchema {
  sessions: { key: string; value: { id: string; user: string } & TtlFields; indexes: { byUser: string } }
  counters: { key: number; value: { n: number } & TtlFields }
}
type Session = Stamped<AppDB['sessions']['value']>

/** Never called: what the bindings accept and return, as tsc sees it. */
function typed(db: TtlDB<AppDB>, opening: Promise<TtlDB<AppDB>>) {
  expectTypeOf(useLiveReact(db, 'sessions')).toEqualTypeOf<Session[] | undefined>()
  expectTypeOf(useLiveReact(opening, 'counters', { query: IDBKeyRange.lowerBound(1) })).toEqualTypeOf<Stamped<AppDB['counters']['value']>[] | undefined>()
  expectTypeOf(useLiveReact(db, 'sessions', { index: 'byUser', query: 'u1', count: 5 })).toEqualTypeOf<Session[] | undefined>()
  expectTypeOf(useLiveItem(db, 'sessions', 'a')).toEqualTypeOf<Session | null | undefined>()
  // @ts-expect-error only declared stores
  useLiveReact(db, 'session')
  // @ts-expect-error only the store's indexes
  useLiveReact(db, 'sessions', { index: 'byUsr' })
  // @ts-expect-error a key of the store's key type
  useLiveItem(db, 'counters', 'a')
  expectTypeOf(useLiveVue(db, 'sessions', () => ({ index: 'byUser' as const, query: 'u1' }))).toEqualTypeOf<Readonly<Ref<Session[] | undefined>>>()
  expectTypeOf(live(opening, 'sessions')).toEqualTypeOf<Readable<Session[] | undefined>>()
}

test('the bindings are typed from the schema (checked by tsc)', () => {
  expect(typeof typed).toBe('function')
})
