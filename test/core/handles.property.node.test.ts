/**
 * Random histories of a full handle (`idb-ttl`) and a core handle (`idb-ttl/core`, loaded as
 * another realm would: a tab of another part of the app) on one database and one clock, with Web
 * Locks (stubbed: held copies of the settings in play, from a random step on) in half the runs, checked after every step
 * against the small model below, written from the SPEC alone (it imports nothing from src/):
 *
 * - declarations (SPEC §3): each handle's open declares a default for store `p`; when it differs
 *   from the one last declared, it applies as a change of default at the open's `now` (what the old
 *   one had killed stays dead). `setDefaultTtl` changes it the same way, by either handle.
 * - capacity (SPEC §9): store `c` is declared `maxEntries: cap` by the full handle only (the core
 *   cannot declare it); whoever opens last, a purge leaves the `cap` most recently written live
 *   items (evict 'oldest', by `_ts`: every step moves the clock a second or more, so no two writes
 *   share one).
 * - mirror (SPEC §12b): store `m` is declared `mirror: true` by the full handle only; every write of
 *   it is queued in the outbox (one record per key: its last live write, `put` or `delete`), and the
 *   core handle, which cannot queue, refuses each of its writes with TtlError `UNSUPPORTED`,
 *   writing nothing.
 *
 * Liveness (SPEC §2): an inheriting item is dead when `_ts <= deadTs`, or the default is n > 0 and
 * `now >= _ts + n`; an item with its own ttl m when `_ts + m <= deadExpiry`, or TTL is on and
 * `now >= _ts + m`; ttl -1 never. A change of default d → d' at `now` raises `deadTs` to `now - d`
 * (d > 0) and `deadExpiry` to `now` (d not null). Every read of each open handle equals the model.
 */
import fc from 'fast-check'
import { deleteDB } from 'idb'
import { expect, test, vi } from 'vitest'
import { openTtlDB, type TtlDB } from '../../src/index.js'
import { OUTBOX_STORE } from '../../src/layout/sync-stores.js'
import { manualClock, uniqueName } from '../helpers.js'
import { ensureLocks } from '../purge/stubs.js'
import { T0 } from '../semantics/support.js'

type Default = number | null
type Store = 'c' | 'm' | 'p'
type Handle = 'full' | 'core'
interface Item {
  id: string
  ttl?: number
  _ts: number
}

const STORES: readonly Store[] = ['c', 'm', 'p']
const IDS = ['a', 'b', 'c', 'd', 'e'] as const
const DEFAULTS: readonly Default[] = [null, -1, 5, 20]

/** One store as the SPEC describes it: its items as written, its default and watermarks. */
class StoreModel {
  items = new Map<string, Item>()
  deadTs: number | null = null
  deadExpiry: number | null = null
  constructor(
    public defaultTtl: Default,
    public declared: Default,
  ) {}

  isDead(item: Item, nowMs: number): boolean {
    const now = nowMs / 1000
    if (item.ttl === -1) return false
    if (item.ttl === undefined) {
      if (this.deadTs !== null && item._ts <= this.deadTs) return true
      return this.defaultTtl !== null && this.defaultTtl > 0 && now >= item._ts + this.defaultTtl
    }
    if (this.deadExpiry !== null && item._ts + item.ttl <= this.deadExpiry) return true
    return this.defaultTtl !== null && now >= item._ts + item.ttl
  }

  live(nowMs: number): Item[] {
    return [...this.items.values()].filter((item) => !this.isDead(item, nowMs)).sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
  }

  change(value: Default, nowMs: number): void {
    const now = nowMs / 1000
    const d = this.defaultTtl
    const max = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b))
    if (d !== null && d > 0) this.deadTs = max(this.deadTs, now - d)
    if (d !== null) this.deadExpiry = max(this.deadExpiry, now)
    this.defaultTtl = value
  }
}

class Model {
  stores: Record<Store, StoreModel>
  /** The outbox of `m`: its last queued write per key. */
  outbox = new Map<string, 'put' | 'delete'>()
  constructor(
    defaults: Record<Store, Default>,
    readonly cap: number,
  ) {
    this.stores = { c: new StoreModel(defaults.c, defaults.c), m: new StoreModel(defaults.m, defaults.m), p: new StoreModel(defaults.p, defaults.p) }
  }

  declare(p: Default, nowMs: number): void {
    const store = this.stores.p
    if (store.declared === p) return
    store.change(p, nowMs)
    store.declared = p
  }

  /** Whether `handle` may write `store`: the core cannot queue the writes of the mirrored one. */
  refuses(handle: Handle, store: Store): boolean {
    return handle === 'core' && store === 'm'
  }

  put(store: Store, id: string, ttl: number | undefined, nowMs: number): void {
    const item: Item = { id, _ts: Math.floor(nowMs / 1000) }
    if (ttl !== undefined) item.ttl = ttl
    this.stores[store].items.set(id, item)
    if (store === 'm') this.outbox.set(id, 'put')
  }

  delete(store: Store, id: string, nowMs: number): void {
    const model = this.stores[store]
    const item = model.items.get(id)
    // The delete of an expired item is queued for no one: the server's copy may still be alive.
    if (store === 'm' && item && !model.isDead(item, nowMs)) this.outbox.set(id, 'delete')
    model.items.delete(id)
  }

  /** A purge of every store: the dead go, and `c` keeps its `cap` most recently written live items. */
  purge(nowMs: number): void {
    for (const store of STORES) {
      const model = this.stores[store]
      const live = model.live(nowMs)
      model.items = new Map(live.map((item) => [item.id, item]))
    }
    const c = this.stores.c
    const byAge = [...c.items.values()].sort((x, y) => x._ts - y._ts)
    for (const item of byAge.slice(0, Math.max(0, byAge.length - this.cap))) c.items.delete(item.id)
  }
}

type Step =
  | { kind: 'put'; handle: Handle; store: Store; id: string; ttl: number | undefined }
  | { kind: 'delete'; handle: Handle; store: Store; id: string }
  | { kind: 'setDefaultTtl'; handle: Handle; value: Default }
  | { kind: 'purge' }
  | { kind: 'reopen'; handle: Handle; p: Default }
  /** From now on the realms may hold the settings (until then their shared settings lock is not granted). */
  | { kind: 'holdSettings' }

const handle = fc.constantFrom<Handle>('full', 'core')
const store = fc.constantFrom<Store>(...STORES)
const id = fc.constantFrom(...IDS)
const ttl = fc.option(fc.constantFrom(-1, 3, 10, 40), { nil: undefined })
const aDefault = fc.constantFrom(...DEFAULTS)
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('put' as const), handle, store, id, ttl }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), handle, store, id }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('setDefaultTtl' as const), handle, value: aDefault }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('purge' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reopen' as const), handle, p: aDefault }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('holdSettings' as const) }) },
)

test('a full and a core handle on one database keep the declared defaults, the capacity and the mirror only the full one declares', { timeout: 180_000 }, async () => {
  // The core handle is another realm's, as in a tab of another part of the app.
  vi.resetModules()
  const core = (await import('../../src/core.js')) as typeof import('../../src/core.js')
  await fc.assert(
    fc.asyncProperty(
      fc.record({ c: aDefault, m: aDefault, p: aDefault }),
      fc.integer({ min: 1, max: 3 }),
      fc.boolean(),
      fc.array(fc.record({ step, ms: fc.integer({ min: 1000, max: 15_000 }) }), { minLength: 5, maxLength: 30 }),
      async (defaults, cap, locks, steps) => {
        const removeLocks = locks ? ensureLocks() : () => {}
        // With Web Locks, the realms hold no settings until the history's `holdSettings` step, if
        // any: their shared settings locks are asked for only then, as where the code that holds
        // them loads late (idb-ttl/core's first load carries none of it) or the grant comes late.
        let letHold!: () => void
        const holding = new Promise<void>((resolve) => (letHold = resolve))
        if (locks) {
          const manager = navigator.locks
          const request = manager.request.bind(manager) as (name: string, options: LockOptions, callback: LockGrantedCallback<unknown>) => Promise<unknown>
          Object.defineProperty(manager, 'request', {
            configurable: true,
            value: (lock: string, options: LockOptions, callback: LockGrantedCallback<unknown>) =>
              lock.startsWith('idb-ttl:settings:') && options.mode === 'shared' ? holding.then(() => request(lock, options, callback)) : request(lock, options, callback),
          })
        }
        const name = uniqueName('handles-prop')
        const clock = manualClock(T0)
        const model = new Model(defaults, cap)
        const declared = { full: defaults.p, core: defaults.p }
        const fullStores = (p: Default) => ({
          c: { keyPath: 'id', defaultTtl: defaults.c, maxEntries: cap },
          m: { keyPath: 'id', defaultTtl: defaults.m, mirror: true },
          p: { keyPath: 'id', defaultTtl: p },
        })
        const coreStores = (p: Default) => ({ c: { keyPath: 'id', defaultTtl: defaults.c }, m: { keyPath: 'id', defaultTtl: defaults.m }, p: { keyPath: 'id', defaultTtl: p } })
        const open = {
          full: (p: Default) => openTtlDB<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: fullStores(p) }),
          core: (p: Default) => core.openTtlDB<any>(name, { version: 1, clock, purge: { mode: 'off' }, stores: coreStores(p) }),
        }
        // The full handle creates the database (a core one cannot give `c` its capacity's index).
        const handles: { full: TtlDB<any>; core: import('../../src/core.js').TtlCoreDB<any> } = { full: await open.full(defaults.p), core: await open.core(defaults.p) }
        const check = async (at: string) => {
          for (const s of STORES) {
            const expected = model.stores[s].live(clock.now)
            for (const h of ['full', 'core'] as const) expect(await handles[h].getAll(s), `${at}: ${h} reads ${s}`).toEqual(expected)
            expect(await handles.full.getDefaultTtl(s), `${at}: default of ${s}`).toBe(model.stores[s].defaultTtl)
          }
          const records = (await handles.full.raw.getAll(OUTBOX_STORE)) as { store: string; key: string; op: string }[]
          expect(new Map(records.map((r) => [r.key, r.op])), `${at}: the outbox`).toEqual(model.outbox)
        }
        try {
          await check('open')
          for (const [i, { step: s, ms }] of steps.entries()) {
            const at = `step ${i} ${JSON.stringify(s)}`
            if (s.kind === 'put' || s.kind === 'delete') {
              const writing = s.kind === 'put' ? handles[s.handle].put(s.store, s.ttl === undefined ? { id: s.id } : { id: s.id, ttl: s.ttl }) : handles[s.handle].delete(s.store, s.id)
              if (model.refuses(s.handle, s.store)) {
                await expect(writing, at).rejects.toMatchObject({ name: 'TtlError', code: 'UNSUPPORTED' })
              } else {
                await writing
                if (s.kind === 'put') model.put(s.store, s.id, s.ttl, clock.now)
                else model.delete(s.store, s.id, clock.now)
              }
            } else if (s.kind === 'setDefaultTtl') {
              await handles[s.handle].setDefaultTtl('p', s.value ?? null)
              model.stores.p.change(s.value, clock.now)
            } else if (s.kind === 'holdSettings') {
              letHold()
            } else if (s.kind === 'purge') {
              await handles.full.purgeExpired()
              model.purge(clock.now)
              expect((await handles.full.raw.getAll('c')).map((item: Item) => item.id), `${at}: c on disk`).toEqual(model.stores.c.live(clock.now).map((item) => item.id))
            } else {
              handles[s.handle].close()
              handles[s.handle] = (await open[s.handle](s.p)) as never
              declared[s.handle] = s.p
              model.declare(s.p, clock.now)
            }
            await check(at)
            clock.advance(ms)
          }
        } finally {
          handles.full.close()
          handles.core.close()
          letHold()
          removeLocks()
          await deleteDB(name)
        }
      },
    ),
    { numRuns: 60 },
  )
})
