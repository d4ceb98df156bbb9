/**
 * SPEC §9 at a real, small origin quota (scripts/quota.mjs): an opted-in store under a steady
 * stream of 20 kB writes, 10× the quota in all, accepts every write, while a store without
 * evictOnQuota keeps every live item, and a write that can never fit rejects with nothing of it
 * written. Chromium: quota set through the DevTools protocol; Firefox: through a pref. The log
 * line gives the time of the writes that had to make room (p50, max). Then, in Chromium, writes
 * sixteen at a time, 500 kB each, which meet a full disk side by side.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { openAtQuota, startQuotaServer, type Outcome, type QuotaWindow } from '../../scripts/quota.mjs'

const QUOTA_MB = 10
const VALUE_BYTES = 20_000
const WRITES = Math.ceil((10 * QUOTA_MB * 1024 * 1024) / VALUE_BYTES)
const KEEP = 50

let server: Awaited<ReturnType<typeof startQuotaServer>>

beforeAll(async () => {
  server = await startQuotaServer()
})

afterAll(async () => {
  await server?.close()
})

describe.each(['chromium', 'firefox'] as const)('at a %s origin quota of 10 MB, a stream of 20 kB writes, 10× the quota in all', (engine) => {
  let page: QuotaWindow
  let outcome: Outcome
  beforeAll(async () => {
    page = await openAtQuota(engine, server.origin, QUOTA_MB)
    outcome = await page.stream({ libUrl: server.libUrl, writes: WRITES, keep: KEEP, bytes: VALUE_BYTES, quotaBytes: QUOTA_MB * 1024 * 1024 })
    const { normalMs, reliefMs, failures, ...rest } = outcome
    const sorted = [...reliefMs].sort((a, b) => a - b)
    console.log(`${engine}: ${JSON.stringify({ ...rest, failed: failures.length, firstFailures: failures.slice(0, 3), reliefWrites: reliefMs.length, reliefMs: { p50: Math.round(sorted[sorted.length >> 1] ?? NaN), max: Math.round(sorted.at(-1) ?? NaN) } })}`)
  }, 600_000)
  afterAll(async () => {
    await page?.close()
  })

  test(`the store without evictOnQuota keeps its ${KEEP} items; a write that can never fit rejects with QuotaExceededError and leaves nothing`, () => {
    expect(outcome.keep).toBe(KEEP)
    expect(outcome.neverFits).toBe('QuotaExceededError')
    expect(outcome.neverFitsWritten).toBe(0)
    expect(outcome.failures.every((failure) => failure.includes('QuotaExceededError'))).toBe(true)
  })

  // Chromium gives deleted records' room back only when its LevelDB compacts: there the opted-in
  // store keeps its values in generation databases, deleted whole (src/generations.ts).
  test(`the opted-in store accepts all ${WRITES} writes, evicting its oldest items`, () => {
    expect(outcome.failures).toEqual([])
    expect(outcome.accepted).toBe(WRITES)
    expect(outcome.lastWritten).toBe(true)
    expect(outcome.evicted).toBeGreaterThan(0)
  })
})

// Writes side by side at a full disk, large enough that a few fill it. Before a page made room
// for one write at a time, a write whose rounds found the items given up and the generations
// deleted by another's rejected at once, without waiting for the room coming back: 74 of the 210
// rejected with QuotaExceededError (eight at a time: one in one run of two). Pinned on a test
// disk by test/capacity/quota.test.ts.
describe('at a chromium origin quota of 10 MB, 500 kB writes sixteen at a time, 10× the quota in all', () => {
  const bytes = 500_000
  const writes = Math.ceil((10 * QUOTA_MB * 1024 * 1024) / bytes)
  let page: QuotaWindow
  let outcome: Outcome
  beforeAll(async () => {
    page = await openAtQuota('chromium', server.origin, QUOTA_MB)
    outcome = await page.stream({ libUrl: server.libUrl, writes, keep: KEEP, bytes: VALUE_BYTES, valueBytes: bytes, quotaBytes: QUOTA_MB * 1024 * 1024, inFlight: 16 })
    const { normalMs, reliefMs, failures, ...rest } = outcome
    console.log(`chromium, sixteen at a time: ${JSON.stringify({ ...rest, failed: failures.length, firstFailures: failures.slice(0, 3), reliefWrites: reliefMs.length })}`)
  }, 600_000)
  afterAll(async () => {
    await page?.close()
  })

  test(`the opted-in store accepts all ${writes} writes; the store without evictOnQuota keeps its ${KEEP} items`, () => {
    expect(outcome.failures).toEqual([])
    expect(outcome.accepted).toBe(writes)
    expect(outcome.keep).toBe(KEEP)
    expect(outcome.evicted).toBeGreaterThan(0)
  })
})
