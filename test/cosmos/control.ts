/**
 * Starting and steering the test servers, in Node, in calls whose arguments and results are plain
 * data: the Node tests call them directly, and a test page calls them as Vitest browser commands
 * (`cosmosCommands`, registered for the browser projects in vitest.config.ts), which run in the
 * Node process that serves the page. Servers and proxies are named by their port, so that test
 * files running side by side each steer their own.
 */
import type { BrowserCommand } from 'vitest/node'
import { listenCosmos, startProxy, type Fault, type Proxy } from './listen.js'

const servers = new Map<number, () => Promise<void>>()
const proxies = new Map<number, Proxy>()

/** What a proxy saw: the requests it answered with a fault and those it passed on, with when (performance.now() in Node). */
export type ProxyLog = Pick<Proxy, 'faults' | 'passed'>

function proxyAt(port: number): Proxy {
  const proxy = proxies.get(port)
  if (!proxy) throw new Error(`no test proxy on port ${port}`)
  return proxy
}

/** Starts a Cosmos DB server of its own; resolves to its port. */
export async function cosmosServerStart(): Promise<number> {
  const { port, stop } = await listenCosmos()
  servers.set(port, stop)
  return port
}

export async function cosmosServerStop(port: number): Promise<void> {
  const stop = servers.get(port)
  servers.delete(port)
  await stop?.()
}

/** Starts a fault proxy in front of the server on `target`; resolves to its port. */
export async function cosmosProxyStart(target: number): Promise<number> {
  const proxy = await startProxy(target)
  proxies.set(proxy.port, proxy)
  return proxy.port
}

/** Plays `fault` on the next requests (none: passes everything on). */
export async function cosmosProxyFault(port: number, fault: Fault | null): Promise<void> {
  proxyAt(port).fault = fault ?? undefined
}

export async function cosmosProxyLog(port: number): Promise<ProxyLog> {
  const { faults, passed } = proxyAt(port)
  return { faults: [...faults], passed: [...passed] }
}

/** No fault, an empty log. */
export async function cosmosProxyReset(port: number): Promise<void> {
  const proxy = proxyAt(port)
  proxy.fault = undefined
  proxy.faults.length = 0
  proxy.passed.length = 0
}

/** Refuses connections, as with no network, until {@link cosmosProxyOnline}. */
export async function cosmosProxyOffline(port: number): Promise<void> {
  await proxyAt(port).offline()
}

export async function cosmosProxyOnline(port: number): Promise<void> {
  await proxyAt(port).online()
}

export async function cosmosProxyStop(port: number): Promise<void> {
  const proxy = proxies.get(port)
  proxies.delete(port)
  await proxy?.close()
}

const control = {
  cosmosServerStart,
  cosmosServerStop,
  cosmosProxyStart,
  cosmosProxyFault,
  cosmosProxyLog,
  cosmosProxyReset,
  cosmosProxyOffline,
  cosmosProxyOnline,
  cosmosProxyStop,
}

/** The server control as a test page sees it: each call, as a Vitest browser command. */
export type CosmosControl = typeof control

/** The same calls as browser commands (a command's first argument is its context, unused here). */
export const cosmosCommands = Object.fromEntries(
  Object.entries(control).map(([name, call]) => [name, (_context: unknown, ...args: unknown[]) => (call as (...a: unknown[]) => unknown)(...args)]),
) as { [K in keyof CosmosControl]: BrowserCommand<Parameters<CosmosControl[K]>> }

declare module 'vitest/browser' {
  interface BrowserCommands extends CosmosControl {}
}
