// How long tests poll for what they cannot await (no imports: any test may load it).

/**
 * `vi.waitFor`/`expect.poll` options for what a test cannot await: work that reaches it across a
 * worker, the database's bus (BroadcastChannel), a Web Lock, an idle callback or a chunk loaded on
 * first use. On CI's loaded 2 cores such a round trip can take longer than the default 1 s; a wait
 * that is met returns at once, so the long timeout costs nothing.
 */
export const SOON = { timeout: 10_000, interval: 5 }

/**
 * Keeps a transaction open with one read after another until `done()`, and resolves to whether it
 * came: a call that waited for the transaction never resolves, so a bound is needed, and it is one
 * of time. A bound counted in reads failed in CI: Firefox under disk load made 1000 reads of a held
 * transaction in 95 ms while readwrite commits beside it took longer. The bound is short of the
 * default 5 s test timeout, so a call that waits fails the test's assertion, not its timeout.
 */
export async function holdOpenUntil(read: () => Promise<unknown>, done: () => boolean, boundMs = 3_000): Promise<boolean> {
  const until = performance.now() + boundMs
  while (!done() && performance.now() < until) await read()
  return done()
}
