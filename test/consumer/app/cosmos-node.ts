// A Node program using the installed `idb-ttl/cosmos` with the installed `@azure/cosmos`, against
// the Cosmos DB server at the endpoint given as its argument (the consumer test starts one). It
// prints one JSON line: what it saw. IndexedDB comes from fake-indexeddb, as in a user's Node tests.
import 'fake-indexeddb/auto'
import { CosmosClient } from '@azure/cosmos'
import { openTtlDB, type TtlFields } from 'idb-ttl'
import { syncCosmos, type CosmosItem, type SyncState } from 'idb-ttl/cosmos'

interface Note extends TtlFields {
  id: string
  text: string
}

const client = new CosmosClient({
  endpoint: process.argv[2],
  key: 'the test server accepts any key',
  connectionPolicy: { enableEndpointDiscovery: false },
})
const { database } = await client.databases.createIfNotExists({ id: 'consumer' })
const { container } = await database.containers.createIfNotExists({ id: 'notes', partitionKey: { paths: ['/id'] }, defaultTtl: 3600 })
const { resource: onServer } = await container.items.create<CosmosItem>({ id: 'from-server', text: 'written on the server', ttl: 120 })

const db = await openTtlDB<{ notes: { key: string; value: Note } }>('consumer-cosmos', {
  version: 1,
  stores: { notes: { keyPath: 'id', keepTs: true } },
  purge: { mode: 'off' },
})
const sync = syncCosmos(db, 'notes', container)
const states: SyncState[] = []
sync.onStatus((status) => states.push(status.state))

const pulled = await sync.pull()
const local = await db.get('notes', 'from-server')
await db.put('notes', { id: 'from-page', text: 'written locally' })
const pushed = await sync.push()
const { resource: pushedOnServer } = await container.item('from-page', 'from-page').read<CosmosItem>()
const pushedLocally = (await db.get('notes', 'from-page')) as (Note & { _etag?: string }) | undefined
const defaultTtl = await db.getDefaultTtl('notes')
sync.stop()
db.close()

console.log(
  JSON.stringify({
    pulled,
    pushed,
    defaultTtl,
    serverTs: onServer?._ts,
    local: local && { text: local.text, ttl: local.ttl, _ts: local._ts },
    pushedOnServer: pushedOnServer && { text: pushedOnServer.text, _ts: pushedOnServer._ts, _etag: pushedOnServer._etag },
    pushedLocally: pushedLocally && { _ts: pushedLocally._ts, _etag: pushedLocally._etag },
    pending: sync.status.pending,
    states,
  }),
)
