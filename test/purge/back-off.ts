// A purge whose worker crashes, driven through its first back-off on the clock.
import { expect, vi } from 'vitest'
import type { PurgeReport, TtlDB } from '../../src/index.js'
import { SOON } from '../waits.js'
import type { timersOnClock } from './timers.js'

/**
 * Runs the first slice of `db` (worker mode, `idleTimeoutMs` 5, its scheduler's waits on `clock`
 * by `waits`), which fails as its worker crashes; then writes and reads every 10 ms of the clock
 * through the first back-off step (1 s), each one waking the purger, and checks that no wait
 * falls due and no second worker starts (`started` counts them) until the retry, at 1 s, starts
 * one. Resolves to the failure reports `db` gave.
 */
export async function crashThroughFirstBackOff(
  db: TtlDB<any>,
  clock: { readonly now: number; advance(ms: number): void; set(ms: number): void },
  waits: ReturnType<typeof timersOnClock>,
  started: () => number,
): Promise<PurgeReport[]> {
  const failures: PurgeReport[] = []
  db.onPurge((r) => r.error && failures.push(r))
  await db.put('s', { id: 0 })
  // The background loads and its first slice runs, at idle callbacks 5 ms of the clock apart;
  // the clock stops once the slice has failed, so that the back-off counts from there.
  await vi.waitFor(() => {
    if (failures.length === 0) {
      clock.advance(5)
      waits.runDue()
    }
    expect(failures).toHaveLength(1)
  }, SOON)
  // Where Web Locks are, the failed purger went to the back of the lock's queue: it backs off
  // (from the same moment of the clock) once the lock is back.
  await vi.waitFor(() => expect(db.isPurger).toBe(true), SOON)
  const failedAt = clock.now
  for (let t = 10; t < 1000; t += 10) {
    clock.set(failedAt + t)
    await db.put('s', { id: t })
    expect(await db.get('s', t)).toMatchObject({ id: t })
    expect(waits.runDue(), `${t} ms into the back-off`).toBe(0)
  }
  expect(started()).toBe(1)
  clock.set(failedAt + 1000)
  expect(waits.runDue()).toBe(1)
  clock.advance(5)
  expect(waits.runDue()).toBe(1)
  await vi.waitFor(() => expect(started()).toBe(2), SOON)
  return failures
}
