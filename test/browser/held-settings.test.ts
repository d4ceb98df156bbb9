// The settings a realm holds in memory (src/layout/held-settings.ts): reads and writes judged by
// them use only their item's store, yet a default changed in another page applies to this page's
// next read, a write right after it is stamped above the watermarks it raised, a page that
// never lets its copies go (frozen) holds a change up for a lease at most and, woken, judges by
// the new settings before it hears of them (its copy outlived the lease), and a write queued
// behind a transaction, holding no copy, makes no read of another store wait.
import { afterEach, expect, test } from 'vitest'
import type { TtlDB } from '../../src/index.js'
import { LEASE_MS } from '../../src/layout/held-settings.js'
import { META_STORE } from '../../src/layout/expiry-index.js'
import { freshDB, manualClock, SOON, uniqueName } from '../helpers.js'
import { openPage } from './pages.js'
import { scopes, untilHeld } from '../semantics/support.js'
import { holdOpenUntil } from '../waits.js'

const stores = { s: { keyPath: 'id', defaultTtl: 100 } }
const opened: TtlDB<any>[] = []
afterEach(() => opened.splice(0).forEach((db) => db.close()))

/** Reads (or runs `use`) until the page holds its copy of the settings (the shared lock is granted in a later task). */
async function held(db: TtlDB<any>, use: () => Promise<unknown> = () => db.get('s', 'a')): Promise<void> {
  if (!(await untilHeld(db, use))) throw new Error('the page never held the settings of store "s"')
}

test('a get, a getAll, an update, a put and a putAll judged by the settings the page holds use only their store', async () => {
  const clock = manualClock()
  const db = await freshDB({ clock, version: 1, purge: { mode: 'off' }, stores })
  await db.put('s', { id: 'a' })
  await held(db)
  const seen = await scopes(db, async () => {
    expect(await db.get('s', 'a')).toMatchObject({ id: 'a' })
    expect(await db.getAll('s')).toHaveLength(1)
    await db.update('s', 'a', { n: 1 })
    await db.put('s', { id: 'b' })
    await db.putAll('s', [{ id: 'c' }, { id: 'd' }])
  })
  expect(seen).toEqual([['s'], ['s'], ['s'], ['s'], ['s']])
})

test('a write right after another page raised the watermarks, on a clock behind them, is live (SPEC §6)', async () => {
  const T0 = 1_700_000_000_000
  const clock = manualClock(T0 + 80_000)
  const theirs = manualClock(T0 + 100_000)
  const name = uniqueName('held-behind')
  const tenSeconds = { s: { keyPath: 'id', defaultTtl: 10 } }
  const db = await freshDB({ clock, version: 1, purge: { mode: 'off' }, stores: tenSeconds }, name)
  opened.push(db)
  await db.put('s', { id: 'a' })
  await held(db)
  const page = await openPage()
  const other = await page.lib.openTtlDB(name, { version: 1, clock: theirs, purge: { mode: 'off' }, stores: tenSeconds })
  opened.push(other)
  // The other page, at 100 s: inheriting items written at or before 90 s are dead for good.
  await other.setDefaultTtl('s', 20)
  // This page, at 80 s (the wall clock stepped back between the two calls), writes at once:
  // before the other page's announcement of the watermarks could reach it. It let its copy of
  // the settings go for the change, so the write reads them first, in a read-only transaction
  // of their own (never the settings store in its own: reads of other stores would wait for it).
  const seen = await scopes(db, () => db.put('s', { id: 'fresh' }))
  expect(seen).toEqual([[META_STORE], ['s']])
  expect(await db.get('s', 'fresh'), 'the item this page just wrote').toBeDefined()
  clock.advance(19_000)
  expect(await db.get('s', 'fresh'), 'live for its ttl minus one second by this page\'s clock').toBeDefined()
  // Once the page holds the lock again, writes keep the settings they read: the next read none.
  await held(db, () => db.put('s', { id: 'next' }))
  expect(await scopes(db, () => db.put('s', { id: 'last' }))).toEqual([['s']])
})

test('a default changed in another page applies to the next read in this one', async () => {
  const clock = manualClock()
  const name = uniqueName('held')
  const db = await freshDB({ clock, version: 1, purge: { mode: 'off' }, stores }, name)
  opened.push(db)
  await db.put('s', { id: 'a' })
  clock.advance(50_000)
  await held(db)
  expect(await db.get('s', 'a')).toBeDefined()
  const page = await openPage()
  const other = await page.lib.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  opened.push(other)
  await other.setDefaultTtl('s', 10)
  // At once: the 50-second-old item is dead under a 10-second default.
  expect(await db.get('s', 'a')).toBeUndefined()
  expect(await db.count('s')).toBe(0)
  await other.setDefaultTtl('s', 100)
  // Expired stays expired (SPEC §3), and this page judges by the settings it reads again.
  expect(await db.get('s', 'a')).toBeUndefined()
  await db.put('s', { id: 'b' })
  await held(db)
  expect(await db.get('s', 'b')).toBeDefined()
})

test("idb-ttl/core: a page reads the settings with each read until what holds Web Locks has loaded (its open loads it), then holds them; a default changed in another page applies to its next read either way", async () => {
  const clock = manualClock()
  const name = uniqueName('held-core')
  const db = await freshDB({ clock, version: 1, purge: { mode: 'off' }, stores }, name)
  opened.push(db)
  await db.put('s', { id: 'a' })
  clock.advance(50_000)
  let loadLocks!: () => void
  const locksMayLoad = new Promise<void>((resolve) => (loadLocks = resolve))
  // The page's import() of platform/lock.ts waits for the test; its others run at once.
  const page = await openPage('idb-ttl/core', (load) => (String(load).includes('platform/lock') ? locksMayLoad.then(load) : load()))
  const core = await page.lib.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  opened.push(core as unknown as TtlDB<any>)
  /** The stores of each transaction the page's `run` opens on the database. */
  const scopesThere = (run: () => Promise<unknown>) => scopes(core, run, page.window)
  for (let i = 0; i < 3; i++) expect(await scopesThere(() => core.get('s', 'a'))).toEqual([['s', META_STORE]])
  await db.setDefaultTtl('s', 10)
  expect(await core.get('s', 'a'), 'dead under the 10-second default set in this page').toBeUndefined()
  loadLocks()
  await core.put('s', { id: 'b' })
  let holds = false
  for (const until = performance.now() + SOON.timeout; !holds && performance.now() < until; await new Promise((resolve) => setTimeout(resolve, 5))) {
    holds = !(await scopesThere(() => core.get('s', 'b'))).flat().includes(META_STORE)
  }
  expect(holds, 'the page holds the settings once what holds Web Locks has loaded').toBe(true)
  clock.advance(5_000)
  expect(await core.get('s', 'b'), 'live, 5 seconds old under the 10-second default').toBeDefined()
  await db.setDefaultTtl('s', 3)
  expect(await core.get('s', 'b'), 'dead under the 3-second default set in this page').toBeUndefined()
})

test('a page that holds the settings and never answers (frozen) delays a change by a lease at most', async () => {
  const clock = manualClock()
  const name = uniqueName('held-frozen')
  const db = await freshDB({ clock, version: 1, purge: { mode: 'off' }, stores }, name)
  opened.push(db)
  await db.put('s', { id: 'a' })
  const page = await openPage()
  // What a frozen page's realm looks like from here: it holds the lock shared and hears nothing.
  let granted!: () => void
  const holding = new Promise<void>((resolve) => (granted = resolve))
  const frozen = page.window.navigator.locks.request(`idb-ttl:settings:${encodeURIComponent(name)}`, { mode: 'shared' }, () => {
    granted()
    return new Promise<void>(() => {})
  })
  const outcome = frozen.then(
    () => 'released',
    (error: DOMException) => error.name,
  )
  await holding
  const started = performance.now()
  clock.advance(50_000)
  await db.setDefaultTtl('s', 10)
  // It waited for the holder as long as a copy may be trusted, then took the lock from it: the
  // frozen page finds its lock request aborted when it wakes.
  expect(performance.now() - started).toBeGreaterThanOrEqual(LEASE_MS - 50)
  expect(await outcome).toBe('AbortError')
  expect(await db.get('s', 'a')).toBeUndefined()
})

test('a page whose lock a change took (it did not answer in time) judges by the settings again', async () => {
  const db = await freshDB({ clock: manualClock(), version: 1, purge: { mode: 'off' }, stores })
  await db.put('s', { id: 'a' })
  await held(db)
  const native = await db.raw
  await navigator.locks.request(`idb-ttl:settings:${encodeURIComponent(native.name)}`, { steal: true }, async () => {})
  const seen = await scopes(db, () => db.get('s', 'a'))
  expect(seen).toEqual([['s', META_STORE]])
})

test('holding no copy (a change let them go), an update queued behind a transaction over its store does not delay reads of another store (SPEC §11)', async () => {
  const three = { held: { keyPath: 'id', defaultTtl: 100 }, other: { keyPath: 'id', defaultTtl: 100 }, third: { keyPath: 'id', defaultTtl: 100 } }
  const db = await freshDB({ clock: manualClock(), version: 1, purge: { mode: 'off' }, stores: three })
  await db.put('held', { id: 'x' })
  await db.put('other', { id: 1 })
  await held(db, () => db.get('other', 1))
  // A change of settings has the page let every copy go: the update and the read below read the
  // settings (as once a transaction outlives a copy's lease).
  await db.setDefaultTtl('third', 50)
  let resolved = false
  const outcome = await db.transaction('held', 'readwrite', async (tx) => {
    const queued = db.update('held', 'x', { seen: true })
    for (let i = 0; i < 3; i++) await tx.get('held', 'x')
    const read = db.get('other', 1).finally(() => (resolved = true))
    const whileOpen = await holdOpenUntil(() => tx.get('held', 'x'), () => resolved)
    return { whileOpen, queued, read }
  })
  expect(outcome.whileOpen, 'the read resolved while the transaction was open').toBe(true)
  expect(await outcome.read).toMatchObject({ id: 1 })
  expect(await outcome.queued).toMatchObject({ id: 'x', seen: true })
})

test("a frozen page whose lock a change took follows the new settings at its first read on waking, before it hears of the change", { timeout: 4 * LEASE_MS }, async () => {
  const clock = manualClock()
  const name = uniqueName('held-lease')
  const page = await openPage()
  const popup = page.window
  // The popup is the page that freezes: while frozen, its channel's messages and its settings
  // lock's end (taken by the change) wait, and reach it in a later task once it wakes.
  let frozen = false
  const waiting: (() => void)[] = []
  const gate = (deliver: () => void) => (frozen ? waiting.push(deliver) : deliver())
  const Channel = popup.BroadcastChannel
  Object.defineProperty(popup, 'BroadcastChannel', {
    configurable: true,
    value: class extends Channel {
      override set onmessage(listener: ((event: MessageEvent) => void) | null) {
        super.onmessage = listener && ((event: MessageEvent) => gate(() => listener.call(this, event)))
      }
      override get onmessage() {
        return super.onmessage
      }
    },
  })
  const locks = popup.navigator.locks
  Object.defineProperty(popup.navigator, 'locks', {
    configurable: true,
    value: {
      request: (lock: string, ...args: [LockOptions, LockGrantedCallback<unknown>]) =>
        lock.startsWith('idb-ttl:settings:')
          ? new Promise((resolve, reject) => locks.request(lock, ...args).then((v) => gate(() => resolve(v)), (e: unknown) => gate(() => reject(e))))
          : locks.request(lock, ...args),
      query: () => locks.query(),
    },
  })
  const sleeper = await page.lib.openTtlDB(name, { version: 1, clock, purge: { mode: 'off' }, stores })
  opened.push(sleeper)
  await sleeper.put('s', { id: 'a' })
  // Reads until the popup holds its copy (a read of its own store alone).
  const native = await sleeper.raw
  let holds = false
  for (const until = performance.now() + SOON.timeout; performance.now() < until && !holds; ) {
    const seen: string[][] = []
    const original = popup.IDBDatabase.prototype.transaction
    popup.IDBDatabase.prototype.transaction = function (this: IDBDatabase, names: string | string[], ...rest: never[]) {
      if (this.name === native.name) seen.push([names].flat())
      return original.call(this, names, ...rest)
    } as typeof original
    await sleeper.get('s', 'a')
    popup.IDBDatabase.prototype.transaction = original
    holds = !seen.flat().includes(META_STORE)
    if (!holds) await new Promise((resolve) => setTimeout(resolve, 10))
  }
  expect(holds, 'the popup holds its copy of the settings').toBe(true)
  const db = await freshDB({ clock, version: 1, purge: { mode: 'off' }, stores }, name)
  clock.advance(50_000)
  frozen = true
  await db.setDefaultTtl('s', 10)
  expect(await db.get('s', 'a'), 'in the page that changed the default').toBeUndefined()
  // It wakes: a read of its first task, before the queued call to let go and its lock's end.
  const read = sleeper.get('s', 'a')
  frozen = false
  setTimeout(() => waiting.splice(0).forEach((deliver) => deliver()), 0)
  expect(await read, 'the 50-second-old item under the new 10-second default').toBeUndefined()
})
