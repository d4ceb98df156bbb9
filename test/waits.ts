// How long tests poll for what they cannot await (no imports: any test may load it).

/**
 * `vi.waitFor`/`expect.poll` options for what a test cannot await: work that reaches it across a
 * worker, the database's bus (BroadcastChannel), a Web Lock, an idle callback or a chunk loaded on
 * first use. On CI's loaded 2 cores such a round trip can take longer than the default 1 s; a wait
 * that is met returns at once, so the long timeout costs nothing.
 */
export const SOON = { timeout: 10_000, interval: 5 }
