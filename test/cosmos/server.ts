/**
 * The Node tests' entry: one Cosmos DB server per test file, and, re-exported, what they use with
 * it: a server of their own and the fault proxy (listen.ts), the clock (clock.ts) and the clients
 * (containers.ts). Node only: test files that run in the browser projects too steer the servers
 * through test/cosmos/harness.ts.
 *
 * The server's limits, which the tests state where they matter: it stores `ttl` but never expires
 * an item (so the tests compare with "the server's items with TTL applied at the same instant"),
 * accepts any key, ignores the partition key of a query (the mirror filters in SQL), and its
 * change feed has no continuation.
 */
import { listenCosmos } from './listen.js'

export { aheadClock } from './clock.js'
export { clientOf, containerVia, newContainer } from './containers.js'
export { listenCosmos, startProxy, type Fault, type Proxy } from './listen.js'

let server: Promise<{ port: number; stop(): Promise<void> }> | undefined

/** Starts the server once per file; resolves to its port. */
export async function cosmosServer(): Promise<number> {
  server ??= listenCosmos()
  return (await server).port
}

export async function stopCosmosServer(): Promise<void> {
  const s = server
  server = undefined
  await (await s)?.stop()
}
