/**
 * Section 7, the page's side of the demo's Cosmos DB account (demo/cosmos-server.ts): asks the
 * dev server where it is, and makes two clients of the same container, one for the server panel
 * and one for the mirror, through separate paths of the proxy so that the demo's network switch
 * cuts the mirror's only. Neither holds a key: the proxy signs their requests.
 */
import { CosmosClient, type Container } from '@azure/cosmos'
import type { CosmosInfo } from './cosmos-server.js'

export interface DemoAccount {
  info: CosmosInfo
  /** The container as the server panel reads and writes it: never cut. */
  server: Container
  /** The same container as the mirror reaches it: through the demo's network. */
  mirror: Container
  /** Cuts (`false`) or restores the mirror's network. */
  setNetwork(online: boolean): Promise<void>
}

const BASE = './__cosmos/'

function containerAt(path: 'server' | 'mirror', info: CosmosInfo): Container {
  const client = new CosmosClient({
    endpoint: new URL(BASE + path, location.href).href,
    // Replaced by the proxy's signature: the page has no key to sign with.
    tokenProvider: async () => 'signed-by-the-dev-server',
    // One endpoint, the proxy's: no regional endpoints to discover. The SDK's own 429 retries
    // are off, so the mirror's back-off is what the demo shows.
    connectionPolicy: { enableEndpointDiscovery: false, retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 } },
  })
  return client.database(info.database).container(info.container)
}

/**
 * The account, or why there is none: the built demo served as plain static files has no dev
 * server behind it, and the dev server may have failed to reach a real account.
 */
export async function connectAccount(): Promise<DemoAccount | { missing: string }> {
  const none = { missing: 'No Cosmos DB server here: npm run demo (or vite preview) serves one; the built demo served as static files has none.' }
  let info: CosmosInfo
  try {
    const response = await fetch(BASE + 'info', { cache: 'no-store' })
    if (!response.headers.get('content-type')?.includes('application/json')) return none
    const body = (await response.json()) as CosmosInfo & { message?: string }
    if (!response.ok) return { missing: body.message ?? `The dev server's Cosmos DB account answered ${response.status}.` }
    info = body
  } catch {
    return none
  }
  return {
    info,
    server: containerAt('server', info),
    mirror: containerAt('mirror', info),
    async setNetwork(online) {
      const response = await fetch(BASE + 'network', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ online }) })
      if (!response.ok) throw new Error(`the network switch answered ${response.status}`)
    },
  }
}
