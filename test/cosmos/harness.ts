/**
 * The test servers as the mirror's tests steer them, the same in the `node` project and in the
 * browser projects: in Node the calls of test/cosmos/control.ts run here; in a test page they
 * run as browser commands in the Node process that serves the page, and the page's SDK reaches
 * the servers through that dev server (test/cosmos/dev-proxy.ts).
 */
import { afterAll, afterEach, beforeAll } from 'vitest'
import type { CosmosControl, ProxyLog } from './control.js'
import type { Fault } from './listen.js'

export type { Fault, ProxyLog }

/**
 * Each imported only where it runs: `vitest/browser` throws outside a page, and control.ts needs
 * Node. Its specifier is a variable so that Vite's dependency scan for the page does not follow it
 * into the Node-only server (and pre-bundle @vercel/cosmosdb-server for the browser).
 */
const NODE_CONTROL = './control.js'
const control: CosmosControl =
  typeof window === 'undefined' ? ((await import(/* @vite-ignore */ NODE_CONTROL)) as CosmosControl) : (await import('vitest/browser')).commands

/** Starts a Cosmos DB server for the calling test file; resolves to its port. */
export const startServer = (): Promise<number> => control.cosmosServerStart()

export const stopServer = (port: number): Promise<void> => control.cosmosServerStop(port)

/** A proxy in front of a server: passes requests on, or plays a fault; logs what it saw. */
export interface FaultProxy {
  port: number
  /** Plays `fault` on the next requests (`undefined`: passes everything on). */
  play(fault: Fault | undefined): Promise<void>
  log(): Promise<ProxyLog>
  /** No fault, an empty log. */
  reset(): Promise<void>
  /** Refuses connections (as with no network) until {@link FaultProxy.online}. */
  offline(): Promise<void>
  online(): Promise<void>
  stop(): Promise<void>
}

/** Starts a fault proxy in front of the server on `target`. */
export async function startFaultProxy(target: number): Promise<FaultProxy> {
  const port = await control.cosmosProxyStart(target)
  return {
    port,
    play: (fault) => control.cosmosProxyFault(port, fault ?? null),
    log: () => control.cosmosProxyLog(port),
    reset: () => control.cosmosProxyReset(port),
    offline: () => control.cosmosProxyOffline(port),
    online: () => control.cosmosProxyOnline(port),
    stop: () => control.cosmosProxyStop(port),
  }
}

/**
 * A server of the calling test file's own and a fault proxy in front of it, started before its
 * tests and stopped after them, the proxy reset after each test; read `port` and `proxy` in tests.
 */
export function serverBehindProxy(): { readonly port: number; readonly proxy: FaultProxy } {
  const started = { port: 0, proxy: undefined as unknown as FaultProxy }
  beforeAll(async () => {
    started.port = await startServer()
    started.proxy = await startFaultProxy(started.port)
  })
  afterEach(() => started.proxy.reset())
  afterAll(async () => {
    await started.proxy.stop()
    await stopServer(started.port)
  })
  return started
}
