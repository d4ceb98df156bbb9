/**
 * Issue #43, 9: `maxWaitMs` bounds a round with a client built as the docs build it, the SDK's
 * own retries on (it waits out 429s by itself, inside one call, up to 30 s): a server that
 * throttles every request ends the round within the budget, after a few requests, as 'error'.
 * In Node and in every browser project alike (test/cosmos/harness.ts).
 */
import { CosmosClient } from '@azure/cosmos'
import { describe, expect, test } from 'vitest'
import { syncCosmos } from '../../src/cosmos/index.js'
import { aheadClock } from './clock.js'
import { newContainer } from './containers.js'
import { endpointOf } from './endpoint.js'
import { serverBehindProxy } from './harness.js'
import { openMirror, outbox } from './support.js'

const servers = serverBehindProxy()

/** The container through the proxy, by a client with the SDK's default retry options (docs/cosmos.md). */
function docsClientContainer(id: string) {
  const client = new CosmosClient({ endpoint: endpointOf(servers.proxy.port), key: 'the test server accepts any key', connectionPolicy: { enableEndpointDiscovery: false } })
  return client.database('test').container(id)
}

describe('maxWaitMs with the SDK retrying on its own', () => {
  test.each([
    ['push', 50],
    ['pull', 50],
    ['push', 5000],
  ] as const)("a %s against a server answering 429 (retry after %i ms) ends within the budget, after a few requests, as 'error'", async (kind, retryAfterMs) => {
    const { id } = await newContainer(servers.port, 60)
    const db = await openMirror(aheadClock())
    const sync = syncCosmos(db, 'items', docsClientContainer(id), { partitionKey: 't1', maxWaitMs: 300 })
    await db.put('items', { id: 'a' })
    await servers.proxy.play({ kind: 'status', status: 429, times: 1000, retryAfterMs })
    const started = performance.now()
    await expect(sync[kind]()).rejects.toThrow()
    const took = performance.now() - started
    const { faults } = await servers.proxy.log()
    // The budget (or a request's own second, the least a call is given), and a request or two past
    // it: about 1.1 s unloaded, 1.4 s seen in Firefox at a load average of 11. Unbounded, the SDK's
    // own retries made this round about 4.1 s (issue #43, item 9), which this still tells apart.
    expect(took, 'the round').toBeLessThan(2500)
    expect(faults.length, 'requests throttled').toBeLessThanOrEqual(12)
    expect(sync.status.state).toBe('error')
    expect(await outbox(db)).toHaveLength(1)
    await servers.proxy.reset()
    expect(await sync.push()).toBe(1)
    db.close()
  })
})
