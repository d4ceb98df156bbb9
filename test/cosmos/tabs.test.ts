/**
 * SPEC §12b "Scope", across tabs: a store is mirrored in one scope at a time, for every tab. Two
 * tabs are two connections of one database; when the second mirrors another partition key value,
 * the first one's sync, whose scope was replaced, stops: it never pulls its partition into the
 * store, nor pushes the other scope's writes into its partition. In Node and in every browser
 * project alike (test/cosmos/harness.ts).
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Container } from '@azure/cosmos'
import { syncCosmos, type CosmosSync, type SyncStatus } from '../../src/cosmos/index.js'
import { TtlError } from '../../src/index.js'
import { uniqueName } from '../helpers.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { startServer, stopServer } from './harness.js'
import { openMirror, outbox } from './support.js'

let port: number
beforeAll(async () => void (port = await startServer()))
afterAll(() => stopServer(port))

/** Resolves to the first status `sync` reports in `state`. */
function statusIn(sync: CosmosSync, state: SyncStatus['state']): Promise<SyncStatus> {
  return new Promise((resolve) => {
    const off = sync.onStatus((status) => status.state === state && (queueMicrotask(() => off()), resolve(status)))
  })
}

/** A container with one item in each of t1 and t2, and two tabs of one database, the first mirroring t1. */
async function twoTabs(options: { intervalMs?: number } = {}) {
  const { container } = await newContainer(port, -1)
  await container.items.create({ id: 'a', tenant: 't1', text: 't1 a' })
  await container.items.create({ id: 'b', tenant: 't2', text: 't2 b' })
  const name = uniqueName('cosmos-tabs')
  const clock = aheadClock()
  const [one, two] = [await openMirror(clock, name), await openMirror(clock, name)]
  const first = syncCosmos(one, 'items', container, { partitionKey: 't1', ...options })
  return { container, one, two, first }
}

test("a sync whose scope another tab replaced stops: its pull and push reject, it pulls nothing of its partition into the store and pushes none of the other scope's writes into it", async () => {
  const { container, one, two, first } = await twoTabs()
  await first.pull()
  expect(await one.getAllKeys('items')).toEqual(['a'])
  // The second tab signs another user in: the store mirrors t2, and t2's user writes offline.
  const second = syncCosmos(two, 'items', container, { partitionKey: 't2' })
  await second.pull()
  await two.put('items', { id: 'mine', text: "t2's own" })
  expect(await two.getAllKeys('items')).toEqual(['b', 'mine'])

  const error = await first.pull().catch((e: unknown) => e)
  expect(error).toBeInstanceOf(TtlError)
  expect(error).toMatchObject({ code: 'CLOSED', message: expect.stringMatching(/another scope/) })
  expect(first.status).toMatchObject({ state: 'error', error: { name: 'TtlError', message: (error as Error).message } })
  await expect(first.push()).rejects.toBe(error)
  await expect(first.rejected()).rejects.toBe(error)
  // Nothing of t1 came in, and t2's queued write stayed t2's, queued.
  expect(await one.getAllKeys('items')).toEqual(['b', 'mine'])
  expect((await container.item('mine', 't1').read()).statusCode).toBe(404)
  expect(await outbox(two)).toHaveLength(1)
  expect(await second.push()).toBe(1)
  expect((await container.item('mine', 't2').read()).resource).toMatchObject({ text: "t2's own" })
  expect(await one.getAllKeys('items')).toEqual(['b', 'mine'])
  second.stop()
  one.close()
  two.close()
})

test('a push of the replaced sync, its first call after the switch, sends nothing into its partition', async () => {
  const { container, one, two, first } = await twoTabs()
  await first.pull()
  const second = syncCosmos(two, 'items', container, { partitionKey: 't2' })
  await two.put('items', { id: 'mine', text: "t2's own" })
  await expect(first.push()).rejects.toMatchObject({ name: 'TtlError', code: 'CLOSED' })
  expect((await container.item('mine', 't1').read()).statusCode).toBe(404)
  expect(await second.push()).toBe(1)
  expect((await container.item('mine', 't2').read()).resource).toMatchObject({ text: "t2's own" })
  second.stop()
  one.close()
  two.close()
})

test("the replaced sync's timer stops too, saying so in onStatus; the store keeps the other scope's items", async () => {
  const { container, one, two, first } = await twoTabs({ intervalMs: 20 })
  const stopped = statusIn(first, 'error')
  const second = syncCosmos(two, 'items', container, { partitionKey: 't2' })
  await second.pull()
  await two.put('items', { id: 'mine', text: "t2's own" })
  expect((await stopped).error).toMatchObject({ name: 'TtlError', message: expect.stringMatching(/another scope/) })
  expect(await one.getAllKeys('items')).toEqual(['b', 'mine'])
  expect((await container.item('mine', 't1').read()).statusCode).toBe(404)
  await expect(first.pull()).rejects.toMatchObject({ code: 'CLOSED' })
  second.stop()
  one.close()
  two.close()
})

test('a sync of the same scope in another tab replaces nothing: both go on', async () => {
  const { container, one, two, first } = await twoTabs()
  await first.pull()
  const second = syncCosmos(two, 'items', container, { partitionKey: 't1' })
  await two.put('items', { id: 'c', text: 'from the second tab' })
  expect(await first.push()).toBe(1)
  expect(await second.pull()).toBeGreaterThanOrEqual(0)
  expect(await first.pull()).toBeGreaterThanOrEqual(0)
  expect((await container.item('c', 't1').read()).resource).toMatchObject({ text: 'from the second tab' })
  expect(first.status.state).toBe('idle')
  first.stop()
  second.stop()
  one.close()
  two.close()
})

test('a scope left and taken again by a third sync still leaves the first one stopped', async () => {
  const { container, one, two, first } = await twoTabs()
  await first.pull()
  const second = syncCosmos(two, 'items', container, { partitionKey: 't2' })
  await second.pull()
  second.stop()
  const third = syncCosmos(two, 'items', container, { partitionKey: 't1' })
  await third.pull()
  await expect(first.pull()).rejects.toMatchObject({ code: 'CLOSED' })
  expect(await third.pull()).toBeGreaterThanOrEqual(0)
  third.stop()
  one.close()
  two.close()
})

test("a write of the first tab queued before the second tab's switch, in the same millisecond, stays the old scope's: parked, never shown in the new", async () => {
  const { container } = await newContainer(port, -1)
  const name = uniqueName('cosmos-tabs')
  // A clock that stands still: the write and the switch fall in one millisecond, where each
  // connection orders its own stamps only (the first tab's stamp is past the ms, the switch's is not).
  const at = Date.now()
  const still = () => at
  const [one, two] = [await openMirror(still, name), await openMirror(still, name)]
  const first = syncCosmos(one, 'items', container, { partitionKey: 't1' })
  await first.pull()
  await one.put('items', { id: 'a', tenant: 't1', text: 't1 a' })
  const second = syncCosmos(two, 'items', container, { partitionKey: 't2' })
  expect(await two.getAll('items')).toEqual([])
  expect(await one.getAll('items')).toEqual([])
  expect(await outbox(two)).toEqual([])
  expect(await second.push()).toBe(0)
  expect((await container.item('a', 't2').read()).statusCode).toBe(404)
  // The write comes back, queued, with its partition.
  second.stop()
  const third = syncCosmos(two, 'items', container, { partitionKey: 't1' })
  expect(await two.getAll('items')).toMatchObject([{ id: 'a', tenant: 't1', text: 't1 a' }])
  expect(await third.push()).toBe(1)
  expect((await container.item('a', 't1').read()).resource).toMatchObject({ text: 't1 a' })
  third.stop()
  one.close()
  two.close()
})

/** `container`, whose definition is read only once `gate` resolves: a round through it holds the store's lock until then. */
function heldUntil(container: Container, gate: Promise<void>): Container {
  return new Proxy(container, {
    get: (target, name) => (name === 'read' ? async () => (await gate, target.read()) : Reflect.get(target, name)),
  })
}

/** A promise and what resolves it. */
function opening(): { gate: Promise<void>; open: () => void } {
  let open!: () => void
  const gate = new Promise<void>((resolve) => (open = resolve))
  return { gate, open }
}

test("a write of the tab switching back, made after another tab's switch landed and before its own: the write parked in that partition does not overwrite it", async () => {
  const { container } = await newContainer(port, -1)
  const name = uniqueName('cosmos-tabs')
  const clock = aheadClock()
  const [one, two] = [await openMirror(clock, name), await openMirror(clock, name)]
  const first = opening()
  const early = syncCosmos(one, 'items', heldUntil(container, first.gate), { partitionKey: 't1' })
  await early.rejected()
  await one.put('items', { id: 'k', text: 'older, queued in t1' })
  // Rounds hold the store's lock, each until its gate opens: the switches queue behind them.
  const pulling = early.pull()
  const second = opening()
  const other = syncCosmos(two, 'items', heldUntil(container, second.gate), { partitionKey: 't2' })
  const otherPulling = other.pull()
  early.stop()
  // The first tab mirrors t1 again: the store still does when it asks, so its calls go on at once.
  const back = syncCosmos(one, 'items', container, { partitionKey: 't1' })
  first.open()
  await pulling
  // The other tab's switch landed (t1's write parked); the first tab's has not yet.
  await other.rejected()
  await one.put('items', { id: 'k', text: 'newer, made after the call' })
  second.open()
  await otherPulling
  await back.pull()
  expect(await one.get('items', 'k')).toMatchObject({ text: 'newer, made after the call' })
  expect(await back.push()).toBe(1)
  expect((await container.item('k', 't1').read()).resource).toMatchObject({ text: 'newer, made after the call' })
  expect((await container.item('k', 't2').read()).statusCode).toBe(404)
  back.stop()
  one.close()
  two.close()
})
