/** Clients and containers of the test server, in Node and in a test page alike. */
import { CosmosClient, type Container, type PartitionKeyDefinition, type PartitionKeyKind } from '@azure/cosmos'
import { endpointOf } from './endpoint.js'

/**
 * A client of `port`. The SDK's own 429 retries are off, so that the mirror's back-off is what
 * the tests see; endpoint discovery is off (the server is one region at one address).
 */
export function clientOf(port: number): CosmosClient {
  return new CosmosClient({
    endpoint: endpointOf(port),
    key: 'the test server accepts any key',
    connectionPolicy: { enableEndpointDiscovery: false, retryOptions: { maxRetryAttemptCount: 0, fixedRetryIntervalInMilliseconds: 0, maxWaitTimeInSeconds: 0 } },
  })
}

let containers = 0

/** A hierarchical partition key: tenant, then user. */
export const TENANT_USER: PartitionKeyDefinition = { paths: ['/tenant', '/user'], kind: 'MultiHash' as PartitionKeyKind, version: 2 }

/**
 * A new container (partition key `/tenant`, or `partitionKey`) with `defaultTtl`, through `port`
 * (the server's or a proxy's).
 */
export async function newContainer(port: number, defaultTtl?: number, partitionKey: PartitionKeyDefinition = { paths: ['/tenant'] }): Promise<{ container: Container; id: string }> {
  const { database } = await clientOf(port).databases.createIfNotExists({ id: 'test' })
  const id = `c${containers++}-${Math.random().toString(36).slice(2)}`
  await database.containers.create({ id, partitionKey, ...(defaultTtl !== undefined && { defaultTtl }) })
  return { container: database.container(id), id }
}

/** The same container through another port. */
export function containerVia(port: number, id: string): Container {
  return clientOf(port).database('test').container(id)
}
