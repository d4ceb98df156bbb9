/**
 * A Cosmos DB server (`@vercel/cosmosdb-server`) and a proxy in front of it that can refuse
 * connections or answer 429 and 5xx, each on a free port of its own. Node only.
 *
 * The server's limits, which the tests state where they matter: it stores `ttl` but never expires
 * an item (so the tests compare with "the server's items with TTL applied at the same instant"),
 * accepts any key, ignores the partition key of a query (the mirror filters in SQL), its change
 * feed has no continuation, and replacing a container's definition empties it (see
 * container-ttl.ts).
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A server of its own on a free port, and how to stop it. */
export async function listenCosmos(): Promise<{ port: number; stop(): Promise<void> }> {
  // Imported here, not at the top: vitest.config.ts loads this file (for the browser commands) on
  // every run, and most runs start no server.
  const { createHttpServer } = await import('@vercel/cosmosdb-server')
  const http = createHttpServer()
  // The answers' `date` from the clock the server stamps `_ts` from (`Date.now`, which the property
  // test moves ahead), not Node's own (real time): one server clock, as on Cosmos DB.
  http.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => res.setHeader('date', new Date(Date.now()).toUTCString()))
  await new Promise<void>((resolve) => http.listen(0, 'localhost', resolve))
  return {
    port: (http.address() as AddressInfo).port,
    stop: () => new Promise((resolve) => (http.closeAllConnections(), http.close(() => resolve()))),
  }
}

/**
 * Passes `req` on to `http://localhost:<port><path>` and the answer back (`seen` sees it first). A
 * port that refuses the connection leaves `req` unanswered (its connection dropped), as a network
 * that is down would.
 */
export function forward(req: IncomingMessage, res: ServerResponse, port: number, path: string, seen?: (answer: IncomingMessage) => void): void {
  const upstream = request({ host: 'localhost', port, path, method: req.method, headers: req.headers }, (answer) => {
    seen?.(answer)
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  upstream.on('error', () => res.destroy())
  req.pipe(upstream)
}

/**
 * What the proxy does with the next requests: `status` answers them itself; `lostAnswer` passes
 * the next writes (POST, PUT, DELETE) on to the server, which makes them, and answers `status` in
 * place of the server's answer, as a connection lost on the way back would leave the client;
 * `midPull` passes the next `after` queries (a query plan's request aside) on, then fails every
 * query after them until reset: answered `status`, or without one, its connection dropped (a
 * network lost mid-pull).
 */
export type Fault =
  | { kind: 'status'; status: number; times: number; retryAfterMs?: number }
  | { kind: 'lostAnswer'; status: number; times: number }
  | { kind: 'midPull'; after: number; status?: number }

/** A proxy in front of the server: passes requests on, or plays a fault; counts what it saw. */
export interface Proxy {
  port: number
  fault: Fault | undefined
  /** Requests answered with a fault, and when (performance.now()), in order. */
  faults: { status: number; at: number }[]
  /** Stops listening (connections are refused, as with no network) until {@link Proxy.online}. */
  offline(): Promise<void>
  online(): Promise<void>
  /** Requests passed on, with when, and of a query (a page), how many documents its answer held. */
  passed: { method: string; url: string; at: number; partitionKey?: string; queryPlan?: true; items?: number }[]
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
    if (fault?.kind === 'lostAnswer' && fault.times > 0 && ['POST', 'PUT', 'DELETE'].includes(req.method ?? '') && !req.headers['x-ms-documentdb-isquery']) {
      fault.times--
      proxy.faults.push({ status: fault.status, at: performance.now() })
      const upstream = request({ host: 'localhost', port: target, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        answer.resume()
        answer.on('end', () => res.writeHead(fault.status, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'ServiceUnavailable', message: 'answer lost, played by the test proxy' })))
      })
      upstream.on('error', () => res.destroy())
      return void req.pipe(upstream)
    }
    const partitionKey = req.headers['x-ms-documentdb-partitionkey']
    const queryPlan = req.headers['x-ms-cosmos-is-query-plan-request'] === 'True' || req.headers['x-ms-cosmos-is-query-plan-request'] === 'true'
    if (fault?.kind === 'midPull' && req.headers['x-ms-documentdb-isquery'] && !queryPlan && fault.after-- <= 0) {
      proxy.faults.push({ status: fault.status ?? 0, at: performance.now() })
      if (fault.status === undefined) return void req.socket.destroy()
      req.resume()
      return void res.writeHead(fault.status, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'ServiceUnavailable', message: 'played by the test proxy' }))
    }
    const passed: Proxy['passed'][number] = { method: req.method ?? '', url: req.url ?? '', at: performance.now(), ...(typeof partitionKey === 'string' && { partitionKey }), ...(queryPlan && { queryPlan }) }
    proxy.passed.push(passed)
    forward(req, res, target, req.url ?? '/', (answer) => {
      const items = answer.headers['x-ms-item-count']
      if (typeof items === 'string') passed.items = Number(items)
    })
  })
  await new Promise<void>((resolve) => http.listen(0, 'localhost', resolve))
  proxy.port = (http.address() as AddressInfo).port
  proxy.close = () => new Promise((resolve) => (http.closeAllConnections(), http.close(() => resolve())))
  proxy.offline = proxy.close
  proxy.online = () => new Promise((resolve) => http.listen(proxy.port, 'localhost', resolve))
  return proxy
}
