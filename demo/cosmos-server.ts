/**
 * The demo's Cosmos DB account, a Vite plugin run by the dev server (`npm run demo`) and by
 * `vite preview`, in Node: the page never sees it. By default it starts the in-process Cosmos DB
 * server the mirror's tests use (`@vercel/cosmosdb-server`) on a free port, at the first request
 * for it; with `COSMOS_CONNECTION_STRING` (`AccountEndpoint=…;AccountKey=…;`) it uses that account
 * instead. Either way it creates the database and the container the demo mirrors (`/tenant`
 * partitions, `defaultTtl` 60 s) if they are missing, and serves, same-origin:
 *
 * - `__cosmos/info`: where the page's clients point, and which account is behind them;
 * - `__cosmos/server/…` and `__cosmos/mirror/…`: the Cosmos DB REST API, proxied. The SDK builds a
 *   request's URL as its `endpoint` with the resource path appended (`prepareURL` in
 *   `@azure/cosmos`: `…/__cosmos/mirror` + `/dbs/…`), and with endpoint discovery off it never
 *   swaps the endpoint for a regional one, so a path prefix survives. The server panel's client
 *   goes through `server`, the mirror's through `mirror`. Only the container's paths (and the
 *   account read) pass: the key signs for nothing else of a real account;
 * - `__cosmos/network` (POST `{ online }`): the demo's "network". While it is cut, every request
 *   on `mirror` has its connection closed without an answer, as a dropped network would (the
 *   mirror reports `offline`), while `server` still answers: the container stays visible.
 *
 * In front of the embedded server, which takes a body of any size, the proxy refuses one over
 * Cosmos DB's 2 MB item limit as an account does (413): the panel's "too big" write shows a
 * record set aside. An account refuses it by itself.
 *
 * The master key stays here. The page's clients send a placeholder token; this proxy signs every
 * request itself (the SDK's master-key signature over verb, resource type, resource link and
 * date) and passes it on, so the page can do to the container what the key can, through this
 * dev server only (it listens on localhost), and never holds the key. (A production app would hand the page resource tokens instead: docs/cosmos.md.)
 */
import { createHmac } from 'node:crypto'
import { request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import type { Plugin } from 'vite'

/** What `__cosmos/info` answers: the page's side of the account (demo/cosmos-account.ts). */
export interface CosmosInfo {
  database: string
  container: string
  /** The partition key value the page writes and mirrors. */
  partitionKey: string
  /** `'embedded'`, or the real account's host. */
  account: string
  /** Whether the demo's network is up (the switch is the dev server's, shared by its tabs). */
  online: boolean
}

const PREFIX = /^\/__cosmos\/(info|network|server|mirror)(\/.*)?$/
const DATABASE = 'idb-ttl-demo'
const CONTAINER = 'mirror'
const PARTITION_KEY = 'demo'
/** The container's `defaultTtl`: long enough to write on one side and watch the other. */
const DEFAULT_TTL = 60
/** The container's REST path: the only one the proxy signs for, beside the account read (`/`). */
const CONTAINER_PATH = `/dbs/${DATABASE}/colls/${CONTAINER}`
/** The embedded server checks no signature, but the proxy signs every request all the same. */
const EMBEDDED_KEY = 'ZW1iZWRkZWQ='
/** Cosmos DB's largest item, 2 MB: an account answers 413 to a bigger request body. */
const MAX_ITEM_BYTES = 2 * 1024 * 1024
/** Headers of the page's request that are the dev server's business, not the account's. */
const DROPPED = ['host', 'origin', 'referer', 'cookie', 'authorization', 'connection']

interface Upstream {
  endpoint: URL
  key: string
  account: string
  close(): Promise<void>
}

/** `AccountEndpoint=…;AccountKey=…;` → endpoint and key; `undefined` when absent or unreadable. */
function parseConnectionString(text: string | undefined): { endpoint: URL; key: string } | undefined {
  const fields = new Map((text ?? '').split(';').map((part) => {
    const at = part.indexOf('=')
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const
  }))
  const endpoint = fields.get('AccountEndpoint')
  const key = fields.get('AccountKey')
  return endpoint && key ? { endpoint: new URL(endpoint), key } : undefined
}

async function startUpstream(): Promise<Upstream> {
  // Loaded by the first request for the account, not with vite.config.ts: a build, a preview or
  // a dev server that never shows section 7 does not pay for the SDK and the server (about 1 s).
  const [{ CosmosClient }, { createHttpServer }] = await Promise.all([import('@azure/cosmos'), import('@vercel/cosmosdb-server')])
  const real = parseConnectionString(process.env.COSMOS_CONNECTION_STRING)
  let upstream: Upstream
  if (real) upstream = { ...real, account: real.endpoint.host, close: async () => {} }
  else {
    const server: Server = createHttpServer()
    await new Promise<void>((resolve) => server.listen(0, 'localhost', resolve))
    upstream = {
      endpoint: new URL(`http://localhost:${(server.address() as AddressInfo).port}`),
      key: EMBEDDED_KEY,
      account: 'embedded',
      close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
    }
  }
  const client = new CosmosClient({ endpoint: upstream.endpoint.href, key: upstream.key, connectionPolicy: { enableEndpointDiscovery: false } })
  const { database } = await client.databases.createIfNotExists({ id: DATABASE })
  await database.containers.createIfNotExists({ id: CONTAINER, partitionKey: { paths: ['/tenant'] }, defaultTtl: DEFAULT_TTL })
  client.dispose()
  return upstream
}

/**
 * The master-key signature of a request to `path` (its REST path, no prefix): the resource type
 * is the last collection segment, the resource link the path up to the resource (an odd number
 * of segments names a feed, `dbs/d/colls/c/docs`, whose link is its parent).
 */
export function sign(key: string, method: string, path: string, date: string): string {
  const segments = path.split('/').filter(Boolean).map(decodeURIComponent)
  const feed = segments.length % 2 === 1
  const type = (feed ? segments.at(-1) : segments.at(-2)) ?? ''
  const link = (feed ? segments.slice(0, -1) : segments).join('/')
  const text = `${method.toLowerCase()}\n${type.toLowerCase()}\n${link}\n${date.toLowerCase()}\n\n`
  const signature = createHmac('sha256', Buffer.from(key, 'base64')).update(text).digest('base64')
  return encodeURIComponent(`type=master&ver=1.0&sig=${signature}`)
}

function forward(upstream: Upstream, path: string, search: string, req: IncomingMessage, res: ServerResponse): void {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !DROPPED.includes(name)) headers[name] = value
  const date = new Date().toUTCString()
  headers['x-ms-date'] = date
  headers.authorization = sign(upstream.key, req.method ?? 'GET', path, date)
  const { endpoint } = upstream
  const send = endpoint.protocol === 'https:' ? httpsRequest : httpRequest
  const out = send({ protocol: endpoint.protocol, hostname: endpoint.hostname, port: endpoint.port, path: path + search, method: req.method, headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(res)
  })
  out.on('error', () => res.destroy())
  req.pipe(out)
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
  res.end(JSON.stringify(body))
}

/** The plugin: see the file's opening comment. */
export function cosmosServer(): Plugin {
  let upstream: Promise<Upstream> | undefined
  let online = true

  const handle = (req: IncomingMessage, res: ServerResponse, next: () => void) => {
    const url = new URL(req.url ?? '/', 'http://localhost')
    const match = PREFIX.exec(url.pathname)
    if (!match) return next()
    const [, route, rest = '/'] = match
    // Started by the first request, and again after a failed start (say, an account unreachable).
    upstream ??= startUpstream().catch((error: unknown) => {
      upstream = undefined
      throw error
    })
    upstream.then((up) => {
      if (route === 'info') return json(res, 200, { database: DATABASE, container: CONTAINER, partitionKey: PARTITION_KEY, account: up.account, online } satisfies CosmosInfo)
      if (route === 'network') {
        if (req.method !== 'POST') return json(res, 405, { message: 'POST { online: boolean }' })
        let body = ''
        req.on('data', (chunk: Buffer) => (body += chunk))
        req.on('end', () => {
          const wanted = (() => {
            try {
              return (JSON.parse(body) as { online?: unknown }).online
            } catch {
              return undefined
            }
          })()
          if (typeof wanted !== 'boolean') return json(res, 400, { message: 'POST { online: boolean }' })
          online = wanted
          json(res, 200, { online })
        })
        return
      }
      // The key signs for the demo's container only, not for the rest of a real account.
      if (rest !== '/' && !rest.startsWith(`${CONTAINER_PATH}/`) && rest !== CONTAINER_PATH) {
        return json(res, 403, { code: 'Forbidden', message: `The demo's proxy passes requests for ${CONTAINER_PATH} only` })
      }
      // A cut network answers nothing: the browser's fetch fails as it would offline.
      if (route === 'mirror' && !online) return void res.destroy()
      if (up.account === 'embedded' && Number(req.headers['content-length'] ?? 0) > MAX_ITEM_BYTES) {
        // Read to its end first: a browser still sending the body would see the connection reset.
        req.resume()
        return void req.on('end', () => json(res, 413, { code: 'RequestEntityTooLarge', message: 'Request size is too large' }))
      }
      forward(up, rest, url.search, req, res)
    }, (error: Error) => json(res, 503, { code: 'CosmosUnavailable', message: `The demo's Cosmos DB account could not be prepared: ${error.message}` }))
  }

  const stop = () => void upstream?.then((up) => up.close(), () => {})
  return {
    name: 'demo-cosmos-server',
    configureServer(server) {
      server.middlewares.use(handle)
      server.httpServer?.once('close', stop)
    },
    configurePreviewServer(server) {
      server.middlewares.use(handle)
      server.httpServer.once('close', stop)
    },
  }
}
