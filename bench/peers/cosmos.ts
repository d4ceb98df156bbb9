/**
 * The Cosmos DB SDK doing the mirror's job with its own bulk calls, against the in-process server
 * that `scripts/bench.mjs` starts (its endpoint in the page's `?cosmos=` parameter): a query of
 * every item (with or without writing them to raw IndexedDB in one transaction), and
 * `executeBulkOperations`. Containers are made and seeded here too, with the bulk call.
 */
import { CosmosClient, type Container, type ItemDefinition, type OperationInput } from '@azure/cosmos'
import { item } from '../data.js'
import { putMany, type RawItem } from './raw.js'

/** Every bench item's partition key value (the containers are partitioned on `/tenant`). */
export const TENANT = 'bench'
/** The containers' defaultTtl, seconds: what the mirror takes as its store's. */
export const CONTAINER_TTL = 3600

export type CosmosBenchItem = ItemDefinition & { id: string; tenant: string; _ts?: number }

/** Item `i` of the bench data as the server takes it: a string id, the partition key. */
export function cosmosItem(i: number): CosmosBenchItem {
  return { ...item(i), id: String(i), tenant: TENANT }
}

let client: CosmosClient | undefined

/**
 * The page's client of the bench server. A token provider (as a page's app has: never the
 * account's key) that the test server does not check; one region at one address, no discovery.
 */
function clientOf(): CosmosClient {
  const endpoint = new URLSearchParams(location.search).get('cosmos')
  if (!endpoint) throw new Error('the cosmos-* scenarios need the page opened with ?cosmos=<endpoint> (scripts/bench.mjs does so)')
  client ??= new CosmosClient({
    endpoint,
    tokenProvider: async () => 'type=resource&ver=1.0&sig=bench',
    connectionPolicy: { enableEndpointDiscovery: false },
  })
  return client
}

let containers = 0

/** A new, empty container (partition key `/tenant`, defaultTtl {@link CONTAINER_TTL}), and how to delete it. */
export async function newContainer(): Promise<{ container: Container; drop: () => Promise<void> }> {
  const { database } = await clientOf().databases.createIfNotExists({ id: 'bench' })
  const { container } = await database.containers.create({
    id: `c${Date.now()}-${containers++}`,
    partitionKey: { paths: ['/tenant'] },
    defaultTtl: CONTAINER_TTL,
  })
  return { container, drop: async () => void (await container.delete()) }
}

/** The SDK's bulk call: every item upserted, each checked. */
export async function bulkUpsert(container: Container, items: CosmosBenchItem[]): Promise<number> {
  const operations: OperationInput[] = items.map((resourceBody) => ({ operationType: 'Upsert', partitionKey: TENANT, resourceBody }))
  const results = await container.items.executeBulkOperations(operations)
  const failed = results.filter((result) => !result.response || result.response.statusCode >= 300)
  if (failed.length) throw new Error(`${failed.length} bulk upserts failed (first: ${JSON.stringify(failed[0].error ?? failed[0].response)})`)
  return results.length
}

/**
 * The SDK's read of every item: all the pages of `maxItemCount` items of the query a first pull
 * of the mirror makes (`src/cosmos/pull.ts`: every change since `_ts` 0, in `_ts` order; this
 * server sorts the whole container for every page of it, which it does not for a plain
 * `SELECT * FROM c`).
 */
export async function readAll(container: Container, maxItemCount: number): Promise<CosmosBenchItem[]> {
  const query = { query: 'SELECT * FROM c WHERE c._ts >= @from ORDER BY c._ts', parameters: [{ name: '@from', value: 0 }] }
  return (await container.items.query<CosmosBenchItem>(query, { maxItemCount }).fetchAll()).resources
}

/**
 * The items written to raw IndexedDB in one transaction, each with the `expiresAt` a hand-rolled
 * mirror keeps (the server's `_ts` + the container's TTL): the least a mirror must do with them.
 */
export function writeRaw(db: IDBDatabase, items: CosmosBenchItem[]): Promise<void> {
  return putMany(db, items.map((value) => ({ ...value, expiresAt: ((value._ts ?? 0) + CONTAINER_TTL) * 1000 }) as unknown as RawItem))
}
