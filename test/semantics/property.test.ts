/**
 * Random histories of writes, deletes, default changes, purges, clock moves, transactions of
 * several writes (SPEC §11: one instant, all or nothing) and bursts of calls not awaited (applied
 * in the order they were made, docs/api.md) against an independent model of SPEC §1–3. The model is written from the SPEC alone: it shares no code
 * with src/ttl.ts or src/policy.ts.
 */
import fc from 'fast-check'
import { deleteDB } from 'idb'
import { expect, test } from 'vitest'
import { openTtlDB, type DefaultTtl, type TtlDB } from '../../src/index.js'
import { manualClock, uniqueName } from '../helpers.js'
import { expectTtlError, T0 } from './support.js'
import { ensureLocks } from '../purge/stubs.js'

const POOL = ['a', 'b', 'c', 'd', 'e'] as const
type Key = (typeof POOL)[number]
/** An item's ttl: `undefined` is an absent field. */
type ItemTtl = number | null | undefined

type Command =
  | { kind: 'put'; key: Key; ttl: ItemTtl }
  | { kind: 'add'; key: Key; ttl: ItemTtl }
  | { kind: 'update'; key: Key; ttl: number | null }
  | { kind: 'touch'; key: Key }
  | { kind: 'delete'; key: Key }
  | { kind: 'setDefaultTtl'; value: DefaultTtl }
  | { kind: 'purge' }
  | { kind: 'advance'; ms: number }
  | { kind: 'tx'; ops: TxOp[]; abort: boolean; together: boolean }
  | { kind: 'burst'; ops: BurstOp[] }

/** A write a transaction can hold. */
type TxOp = Extract<Command, { kind: 'put' | 'add' | 'update' | 'touch' | 'delete' }>

/** A call of a burst: made without awaiting the calls before it. */
type BurstOp = Extract<Command, { kind: 'put' | 'delete' | 'setDefaultTtl' }> | { kind: 'get'; key: Key } | { kind: 'getDefaultTtl' } | { kind: 'count' }

/**
 * The SPEC as a model. Each key holds what was last written and whether it has died. Before
 * every step `settle(now)` marks dead whatever is expired under the setting in force, so a later
 * change of setting can never bring it back: dead stays dead until the key is written again.
 */
class Model {
  readonly items = new Map<Key, { ttl: ItemTtl; ts: number; dead: boolean }>()
  constructor(public defaultTtl: DefaultTtl) {}

  /** Seconds the item lives after `ts`, or null when it never expires (SPEC §1 matrix). */
  private lifetime(ttl: ItemTtl): number | null {
    if (this.defaultTtl === null) return null
    if (ttl === -1) return null
    if (typeof ttl === 'number') return ttl
    return this.defaultTtl === -1 ? null : this.defaultTtl
  }

  settle(nowMs: number): void {
    for (const item of this.items.values()) {
      const life = this.lifetime(item.ttl)
      if (life !== null && nowMs / 1000 >= item.ts + life) item.dead = true
    }
  }

  write(key: Key, ttl: ItemTtl, nowMs: number): void {
    this.items.set(key, { ttl, ts: Math.floor(nowMs / 1000), dead: false })
  }

  isLive(key: Key): boolean {
    const item = this.items.get(key)
    return item !== undefined && !item.dead
  }

  /** A copy to apply a transaction to, kept only if it commits. */
  clone(): Model {
    const copy = new Model(this.defaultTtl)
    for (const [key, item] of this.items) copy.items.set(key, { ...item })
    return copy
  }

  /** Takes over what `draft` holds (a committed transaction). */
  adopt(draft: Model): void {
    this.items.clear()
    for (const [key, item] of draft.items) this.items.set(key, item)
  }

  /** Applies a transaction's write at `nowMs`; returns why it fails (the transaction with it), if it does. */
  apply(op: TxOp, nowMs: number): string | undefined {
    if ((op.kind === 'update' || op.kind === 'touch') && !this.isLive(op.key)) return 'NOT_FOUND'
    if (op.kind === 'add' && this.isLive(op.key)) return 'ConstraintError'
    if (op.kind === 'delete') this.items.delete(op.key)
    else this.write(op.key, op.kind === 'touch' ? this.items.get(op.key)!.ttl : op.ttl, nowMs)
  }

  liveKeys(): Key[] {
    return POOL.filter((key) => this.isLive(key))
  }

  /** Dead items may leave the disk at any time (SPEC §2): forget those that did. */
  forgetGone(onDisk: IDBValidKey[]): void {
    for (const [key, item] of this.items) if (item.dead && !onDisk.includes(key)) this.items.delete(key)
  }

  /** What a purge must take: every dead item on disk. */
  purge(): number {
    let dead = 0
    for (const [key, item] of this.items) {
      if (item.dead) {
        this.items.delete(key)
        dead++
      }
    }
    return dead
  }

  /** What `get` must return for `key`. */
  expected(key: Key): Record<string, unknown> | undefined {
    const item = this.items.get(key)
    if (!item || item.dead) return undefined
    return this.written(key)
  }

  /** What is stored for `key`, dead or alive (without the library's own `$ttl`). */
  written(key: Key): Record<string, unknown> | undefined {
    const item = this.items.get(key)
    if (!item) return undefined
    return item.ttl === undefined ? { id: key, _ts: item.ts } : { id: key, ttl: item.ttl, _ts: item.ts }
  }
}

const key = fc.constantFrom(...POOL)
const itemTtl: fc.Arbitrary<ItemTtl> = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(-1),
  fc.integer({ min: 1, max: 8 }),
)
const defaultTtl: fc.Arbitrary<DefaultTtl> = fc.oneof(fc.constant(null), fc.constant(-1), fc.integer({ min: 1, max: 12 }))
/** 0–30 s: whole seconds (to hit the boundaries), whole ms, and fractional ms. */
const move = fc.oneof(
  fc.integer({ min: 0, max: 30 }).map((s) => s * 1000),
  fc.integer({ min: 0, max: 30_000 }),
  fc.double({ min: 0, max: 30_000, noNaN: true, noDefaultInfinity: true }),
)

const txOp: fc.Arbitrary<TxOp> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('put' as const), key, ttl: itemTtl }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), key, ttl: itemTtl }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('update' as const), key, ttl: fc.oneof(fc.constant(null), fc.constant(-1), fc.integer({ min: 1, max: 8 })) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('touch' as const), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
)

const burstOp: fc.Arbitrary<BurstOp> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('put' as const), key, ttl: itemTtl }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('setDefaultTtl' as const), value: defaultTtl }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('get' as const), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('getDefaultTtl' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('count' as const) }) },
)

const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('burst' as const), ops: fc.array(burstOp, { minLength: 2, maxLength: 6 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('tx' as const), ops: fc.array(txOp, { minLength: 1, maxLength: 4 }), abort: fc.boolean(), together: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('put' as const), key, ttl: itemTtl }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('add' as const), key, ttl: itemTtl }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      key,
      ttl: fc.oneof(fc.constant(null), fc.constant(-1), fc.integer({ min: 1, max: 8 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('touch' as const), key }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), key }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('setDefaultTtl' as const), value: defaultTtl }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('purge' as const) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: move }) },
)

async function run(db: TtlDB<any>, model: Model, clock: ReturnType<typeof manualClock>, cmd: Command) {
  const now = clock.now
  switch (cmd.kind) {
    case 'put': {
      const value: Record<string, unknown> = { id: cmd.key }
      if (cmd.ttl !== undefined) value.ttl = cmd.ttl
      expect(await db.put('s', value)).toBe(cmd.key)
      model.write(cmd.key, cmd.ttl, now)
      return
    }
    case 'add': {
      const value: Record<string, unknown> = { id: cmd.key }
      if (cmd.ttl !== undefined) value.ttl = cmd.ttl
      if (model.isLive(cmd.key)) {
        const error = await db.add('s', value).then(() => undefined, (e: unknown) => e)
        expect((error as DOMException | undefined)?.name, 'add over a live key').toBe('ConstraintError')
      } else {
        expect(await db.add('s', value)).toBe(cmd.key)
        model.write(cmd.key, cmd.ttl, now)
      }
      return
    }
    case 'update': {
      if (model.isLive(cmd.key)) {
        expect(await db.update('s', cmd.key, { ttl: cmd.ttl })).toEqual({ id: cmd.key, ttl: cmd.ttl, _ts: Math.floor(now / 1000) })
        model.write(cmd.key, cmd.ttl, now)
      } else await expectTtlError(db.update('s', cmd.key, { ttl: cmd.ttl }), 'NOT_FOUND')
      return
    }
    case 'touch': {
      if (model.isLive(cmd.key)) {
        await db.touch('s', cmd.key)
        model.write(cmd.key, model.items.get(cmd.key)!.ttl, now)
      } else await expectTtlError(db.touch('s', cmd.key), 'NOT_FOUND')
      return
    }
    case 'delete':
      await db.delete('s', cmd.key)
      model.items.delete(cmd.key)
      return
    case 'setDefaultTtl':
      await db.setDefaultTtl('s', cmd.value)
      model.defaultTtl = cmd.value
      return
    case 'purge': {
      const purged = await db.purgeExpired('s')
      expect(purged, 'purgeExpired count').toBe(model.purge())
      // Never a live item, and every dead one: what is left on disk is exactly the live items.
      expect(await db.raw.getAllKeys('s'), 'on disk after purge').toEqual(model.liveKeys())
      return
    }
    case 'advance':
      clock.advance(cmd.ms)
      return
    case 'tx':
      return runTransaction(db, model, clock, cmd)
    case 'burst':
      return runBurst(db, model, now, cmd.ops)
  }
}

/**
 * The calls of a burst, made one after another without awaiting any: each applies as if the ones
 * before it had ended (docs/api.md), so each read answers what the model holds at its place.
 */
async function runBurst(db: TtlDB<any>, model: Model, now: number, ops: BurstOp[]) {
  const answers = ops.map((op) => {
    model.settle(now)
    switch (op.kind) {
      case 'put':
        model.write(op.key, op.ttl, now)
        return { call: db.put('s', op.ttl === undefined ? { id: op.key } : { id: op.key, ttl: op.ttl }), expected: op.key }
      case 'delete':
        model.items.delete(op.key)
        return { call: db.delete('s', op.key), expected: undefined }
      case 'setDefaultTtl':
        model.defaultTtl = op.value
        return { call: db.setDefaultTtl('s', op.value), expected: undefined }
      case 'get':
        return { call: db.get('s', op.key), expected: model.expected(op.key) }
      case 'getDefaultTtl':
        return { call: db.getDefaultTtl('s'), expected: model.defaultTtl }
      case 'count':
        return { call: db.count('s'), expected: model.liveKeys().length }
    }
  })
  for (const [i, { call, expected }] of answers.entries()) expect(await call, `call ${i} of the burst, ${JSON.stringify(ops[i])}`).toEqual(expected)
}

/** A value as a put or add of `op` writes it. */
function valueOf(op: TxOp): Record<string, unknown> {
  return op.kind === 'put' || op.kind === 'add' ? (op.ttl === undefined ? { id: op.key } : { id: op.key, ttl: op.ttl }) : { id: op.key }
}

/**
 * The writes of `cmd` in one transaction, the clock moving meanwhile: the transaction keeps its
 * instant, and the model, settled after the step, sees the clock where the transaction left it.
 * Inside, reads see the transaction's own writes; a failing write, or a callback that throws,
 * leaves nothing of it. Calls issued together (`Promise.all`) behave as if issued one after
 * another: the same model, and the first failing call's error.
 */
async function runTransaction(db: TtlDB<any>, model: Model, clock: ReturnType<typeof manualClock>, cmd: Extract<Command, { kind: 'tx' }>) {
  const now = clock.now
  const draft = model.clone()
  let failure: string | undefined
  for (const op of cmd.ops) if ((failure = draft.apply(op, now))) break
  const outcome = db.transaction('s', 'readwrite', async (tx) => {
    const call = (op: TxOp): Promise<unknown> => {
      clock.advance(700)
      if (op.kind === 'put' || op.kind === 'add') return tx[op.kind]('s', valueOf(op))
      if (op.kind === 'update') return tx.update('s', op.key, { ttl: op.ttl })
      if (op.kind === 'touch') return tx.touch('s', op.key)
      return tx.delete('s', op.key)
    }
    if (cmd.together) await Promise.all(cmd.ops.map(call))
    else for (const op of cmd.ops) await call(op)
    expect(await tx.getAll('s'), 'getAll inside the transaction').toEqual(draft.liveKeys().map((k) => draft.expected(k)))
    if (cmd.abort) throw new Error('abort')
  })
  const error = await outcome.then(() => undefined, (e: unknown) => e as { name: string; code?: string })
  const expected = failure ?? (cmd.abort ? 'abort' : undefined)
  const why = error === undefined ? undefined : error.name === 'TtlError' ? error.code : error.name === 'Error' ? (error as Error).message : error.name
  expect(why, 'transaction outcome').toBe(expected)
  if (expected === undefined) model.adopt(draft)
}

async function check(db: TtlDB<any>, model: Model, step: string) {
  const live = model.liveKeys()
  const values = live.map((key) => model.expected(key))
  expect(await db.getAllKeys('s'), `getAllKeys after ${step}`).toEqual(live)
  expect(await db.getAll('s'), `getAll after ${step}`).toEqual(values)
  expect(await db.count('s'), `count after ${step}`).toBe(live.length)
  expect(await db.getAllKeys('s', null, 2), `getAllKeys(2) after ${step}`).toEqual(live.slice(0, 2))
  expect(await db.getAll('s', IDBKeyRange.lowerBound('b', true), 2), `getAll(> b, 2) after ${step}`).toEqual(values.filter((v) => (v!.id as string) > 'b').slice(0, 2))
  expect(await db.count('s', IDBKeyRange.bound('b', 'd')), `count([b, d]) after ${step}`).toBe(live.filter((k) => k >= 'b' && k <= 'd').length)
  const iterated: unknown[] = []
  for await (const item of db.iterate('s', null, 2)) iterated.push(item)
  expect(iterated, `iterate(2) after ${step}`).toEqual(values)
  expect(await db.getDefaultTtl('s'), `getDefaultTtl after ${step}`).toBe(model.defaultTtl)
  for (const key of POOL) expect(await db.get('s', key), `get(${key}) after ${step}`).toEqual(model.expected(key))
  // On disk: every live item, and otherwise only dead ones the model knows of, each exactly as written.
  const onDisk = await db.raw.getAllKeys('s')
  for (const key of live) expect(onDisk, `live ${key} on disk after ${step}`).toContain(key)
  for (const key of onDisk) expect(model.items.has(key as Key), `unknown ${String(key)} on disk after ${step}`).toBe(true)
  for (const stored of (await db.raw.getAll('s')) as Record<string, unknown>[]) {
    const { $ttl: _mark, $at: _order, $by: _writer, ...asWritten } = stored
    expect(asWritten, `${String(stored.id)} as stored after ${step}`).toEqual(model.written(stored.id as Key))
  }
  model.forgetGone(onDisk)
}

test('random histories agree with the SPEC model at every step', { timeout: 120_000 }, async () => {
  let steps = 0
  await fc.assert(
    fc.asyncProperty(
      defaultTtl,
      fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 999 })),
      fc.array(command, { minLength: 8, maxLength: 25, size: 'max' }),
      // With Web Locks (a stand-in in Node) the handle holds copies of the settings (src/layout/held-settings.ts).
      fc.boolean(),
      async (initialDefault, startMs, commands, heldCopies) => {
        const removeLocks = heldCopies ? ensureLocks() : () => {}
        const clock = manualClock(T0 + startMs)
        const name = uniqueName('prop')
        const db = await openTtlDB(name, {
          version: 1,
          clock,
          purge: { mode: 'off' },
          stores: { s: { keyPath: 'id', defaultTtl: initialDefault } },
        })
        try {
          const model = new Model(initialDefault)
          for (const [i, cmd] of commands.entries()) {
            model.settle(clock.now)
            await run(db, model, clock, cmd)
            model.settle(clock.now)
            await check(db, model, `step ${i} ${JSON.stringify(cmd)}`)
            steps++
          }
        } finally {
          db.close()
          await deleteDB(name)
          removeLocks()
        }
      },
    ),
    { numRuns: 80 },
  )
  expect(steps).toBeGreaterThanOrEqual(640)
})
