/**
 * The in-process Cosmos DB server (`@vercel/cosmosdb-server`) the mirror's tests run against, a
 * proxy in front of it that can refuse connections or answer 429 and 5xx, and a clock that runs
 * with real time (the server stamps `_ts` from the real clock) and can be moved ahead.
 *
 * The server's limits, which the tests state where they matter: it stores `ttl` but never expires
 * an item (so the tests compare with "the server's items with TTL applied at the same instant"),
 * accepts any key, ignores the partition key of a query (the mirror filters in SQL), and its
 * change feed has no continuation.
 */
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { CosmosClient, type Container } from '@azure/cosmos'
import { createHttpServer } from '@vercel/cosmosdb-server'

let server: Server | undefined
let serverPort = 0

/** Starts the server once per file; resolves to its port. */
export async function cosmosServer(): Promise<number> {
  if (server) return serverPort
  server = createHttpServer()
  await new Promise<void>((resolve) => server!.listen(0, 'localhost', resolve))
  serverPort = (server.address() as AddressInfo).port
  return serverPort
}

export async function stopCosmosServer(): Promise<void> {
  const s = server
  server = undefined
  if (s) await new Promise((resolve) => (s.closeAllConnections(), s.close(resolve)))
}

/** What the proxy does with the next requests. */
export type Fault = { kind: 'status'; status: number; times: number; retryAfterMs?: number }

/** A proxy in front of the server: passes requests on, or plays a fault; counts what it saw. */
export interface Proxy {
  port: number
  fault: Fault | undefined
  /** Requests answered with a fault, and when (performance.now()), in order. */
  faults: { status: number; at: number }[]
  /** Stops listening (connections are refused, as with no network) until {@link Proxy.online}. */
  offline(): Promise<void>
  online(): Promise<void>
  /** Requests passed on, with when. */
  passed: { method: string; url: string; at: number }[]
  close(): Promise<void>
}

export async function startProxy(target: number): Promise<Proxy> {
  const proxy = { port: 0, fault: undefined, faults: [], passed: [] } as unknown as Proxy
  const http = createServer((req: IncomingMessage, res: ServerResponse) => {
    const fault = proxy.fault
    if (fault?.kind === 'status' && fault.times > 0 && req.url !== '/') {
      fault.times--
      proxy.faults.push({ status: fault.status, at: performance.now() })
      req.resume()
      const headers: Record<string, string> = { 'content-type': 'application/json' }
      if (fault.retryAfterMs !== undefined) headers['x-ms-retry-after-ms'] = String(fault.retryAfterMs)
      res.writeHead(fault.status, headers)
      return res.end(JSON.stringify({ code: fault.status === 429 ? 'TooManyRequests' : 'ServiceUnavailable', message: 'played by the test proxy' }))
    }
    proxy.passed.push({ method: req.method ?? '', url: req.url ?? '', at: performance.now() })
    const upstream = request({ host: 'localhost', port: target, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => http.listen(0, 'localhost', resolve))
  proxy.port = (http.address() as AddressInfo).port
  proxy.close = () => new Promise((resolve) => (http.closeAllConnections(), http.close(() => resolve())))
  proxy.offline = proxy.close
  proxy.online = () => new Promise((resolve) => http.listen(proxy.port, 'localhost', resolve))
  return proxy
}

/**
 * A client of `port`. The SDK's own 429 retries are off, so that the mirror's back-off is what
 * the tests see; endpoint discovery is off (the server is one region at one address).
 */
export function clientOf(port: number): CosmosClient {
  return new CosmosClient({
    endpoint: `http://localhost:${port}`,
    key: 'the test server accepts any key',
    connectionPolicy: { enableEndpointDiscovery: false, retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 } },
  })
}

let containers = 0

/** A new container (partition key `/tenant`) with `defaultTtl`, through `port` (the server's or a proxy's). */
export async function newContainer(port: number, defaultTtl?: number): Promise<{ container: Container; id: string }> {
  const { database } = await clientOf(port).databases.createIfNotExists({ id: 'test' })
  const id = `c${containers++}-${Math.random().toString(36).slice(2)}`
  await database.containers.create({ id, partitionKey: { paths: ['/tenant'] }, ...(defaultTtl !== undefined && { defaultTtl }) })
  return { container: database.container(id), id }
}

/** The same container through another port. */
export function containerVia(port: number, id: string): Container {
  return clientOf(port).database('test').container(id)
}

/** A clock at real time plus an offset the test moves ahead (the server's `_ts` is real time). */
export function aheadClock() {
  let offset = 0
  const clock = () => Date.now() + offset
  clock.advance = (ms: number) => void (offset += ms)
  return clock
}
