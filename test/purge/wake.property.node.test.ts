/**
 * Wake-ups (SPEC §8: an idle page's purger wakes at the next expiry) against the independent
 * model of test/semantics/model.ts. Random writes to a `keepTs` store (SPEC §7: values with a
 * `_ts` of their own, whole seconds or not, old or new, or none; every kind of `ttl`; strict or
 * lenient), changes of default and clock moves. After every write, the wake-ups the handle asks
 * of its purge scheduler (`PurgeScheduler.noteWrite`: `ttl` fields counted from a start) must
 * come no later than the first item of the write to die, as the model dates it: a copy whose own
 * `_ts` makes it die in a second (or at once) wakes the purger then, not a ttl after the write.
 * The scheduler's own arithmetic (when it sleeps for a due time) is tested in scheduler.test.ts.
 * Node only: there the handle is its own purger at once (no Web Locks), so every wake-up goes
 * to its own scheduler; in a browser it may go to another tab's first.
 */
import fc from 'fast-check'
import { afterEach, expect, test, vi } from 'vitest'
import { PurgeScheduler } from '../../src/background/scheduler.js'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { KEYS, StoreModel, userFields, type DefaultTtl, type Mode, type Rec } from '../semantics/model.js'
import { deleteAfter, T0 } from '../semantics/support.js'
import { manualClock, uniqueName } from '../helpers.js'

type Value = Record<string, unknown>
type Command =
  | { kind: 'put'; values: Value[] }
  | { kind: 'update'; key: string; changes: Value }
  | { kind: 'setDefaultTtl'; value: DefaultTtl }
  | { kind: 'clock'; ms: number }

const TS0 = T0 / 1000
const ttl = fc.oneof(
  fc.constant(undefined),
  fc.constantFrom<unknown>(null, -1, 1, 2, 5, 60, 3600),
  fc.integer({ min: 1, max: 10 }),
  fc.constantFrom<unknown>(0, 2.5, '3', 3n),
)
/** A value's own `_ts`: none, whole seconds from long ago to a little ahead, or not whole seconds. */
const ownTs = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 4, arbitrary: fc.integer({ min: -7200, max: 30 }).map((s) => TS0 + s) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(0, 1.5, -1, '1700000000') },
)
const value: fc.Arbitrary<Value> = fc.record({ id: fc.constantFrom(...KEYS), ttl, _ts: ownTs }).map(({ id, ttl, _ts }) => {
  const v: Value = { id }
  if (ttl !== undefined) v.ttl = ttl
  if (_ts !== undefined) v._ts = _ts
  return v
})
const defaultTtl = fc.constantFrom<DefaultTtl>(null, -1, 1, 10, 3600)
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), values: fc.array(value, { minLength: 1, maxLength: 3 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      key: fc.constantFrom(...KEYS),
      changes: fc.record({ ttl, _ts: ownTs }, { requiredKeys: [] }).map((c) => Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined))),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('setDefaultTtl' as const), value: defaultTtl }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('clock' as const), ms: fc.integer({ min: 0, max: 20_000 }) }) },
)

afterEach(() => {
  vi.restoreAllMocks()
})

/** When an item stamped `_ts` with this `ttl` field dies by time under the model's settings (epoch ms). */
function deathMs(store: StoreModel, fields: Value, ts: number): number {
  const life = store.life({ ...fields, id: 'x', _ts: ts } as Rec)
  return life === null ? Infinity : (ts + life) * 1000
}

test('after every write to a keepTs store, the purger is asked to wake no later than the first item written dies', { timeout: 120_000 }, async () => {
  const noteWrite = vi.spyOn(PurgeScheduler.prototype, 'noteWrite')
  let writes = 0
  let keptBehind = 0
  await fc.assert(
    fc.asyncProperty(fc.constantFrom<Mode>('strict', 'lenient'), defaultTtl, fc.array(command, { minLength: 1, maxLength: 12 }), async (mode, declared, history) => {
      const clock = manualClock(T0)
      const model = new StoreModel('t', declared, mode, true)
      const name = deleteAfter(uniqueName('wake-prop'))
      // Inline purge: the handle is the purger once its background is loaded (at the first idle
      // callback) in Node (no Web Locks), so every write's wake-up goes to its own scheduler. The
      // purge it runs does not matter here.
      const db: TtlDB<any> = await openTtlDB(name, {
        version: 1,
        clock,
        ttlValues: mode,
        purge: { mode: 'inline', maxIntervalMs: 600_000 },
        stores: { t: { keyPath: 'id', defaultTtl: declared, keepTs: true } },
      })
      try {
        await vi.waitFor(() => expect(db.isPurger).toBe(true), { timeout: 10_000, interval: 10 })
        for (const cmd of history) {
          const now = clock.now
          if (cmd.kind === 'clock') {
            clock.advance(cmd.ms)
            continue
          }
          if (cmd.kind === 'setDefaultTtl') {
            await db.setDefaultTtl('t', cmd.value)
            model.setDefault(cmd.value, now)
            continue
          }
          const calls = noteWrite.mock.calls.length
          let written: { fields: Value; ts: number }[]
          if (cmd.kind === 'put') {
            const ok = await db.putAll('t', cmd.values).then(() => true, () => false)
            if (!ok) continue // an invalid ttl (strict) or _ts (strict): nothing written, nothing to wake for
            written = cmd.values.map((v) => ({ fields: userFields(v), ts: model.writtenTs(v, true, now) }))
          } else {
            const current = model.disk.get(cmd.key)
            const item = await db.update('t', cmd.key, cmd.changes).catch(() => undefined)
            if (item === undefined) continue // no live item, or invalid changes: nothing written
            expect(current, `update of ${cmd.key}, which the model has not`).toBeDefined()
            const next = { ...userFields(current!), ...cmd.changes }
            written = [{ fields: userFields(next), ts: model.writtenTs(next, '_ts' in cmd.changes, now) }]
          }
          writes++
          for (const { fields, ts } of written) model.disk.set(fields.id as string, { ...fields, _ts: ts } as Rec)
          const firstDeath = Math.min(...written.map(({ fields, ts }) => deathMs(model, fields, ts)))
          if (written.some(({ fields, ts }) => ts < Math.floor(now / 1000) && deathMs(model, fields, ts) === firstDeath && firstDeath < Infinity)) keptBehind++
          const asked = noteWrite.mock.calls.slice(calls).filter(([store]) => store === 't')
          const wake = Math.min(
            ...asked.flatMap(([, ttls, startMs]) => ttls.map((t) => deathMs(model, t === undefined ? {} : { ttl: t }, Math.floor(startMs / 1000)))),
          )
          expect(wake, `wake-ups asked ${JSON.stringify(asked, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))} for ${JSON.stringify(written, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))} at ${now}, default ${model.d}`).toBeLessThanOrEqual(firstDeath)
        }
      } finally {
        db.close()
      }
    }),
    { numRuns: 100 },
  )
  expect(writes).toBeGreaterThan(100)
  expect(keptBehind, 'histories never wrote an item dying first by an own _ts behind the clock').toBeGreaterThan(10)
})
