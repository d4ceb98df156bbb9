/**
 * A batch of the outbox as one bulk request (`Items.bulk`): each record's first
 * attempt, on the same conditions as one request of its own (`push.ts`): a create where the
 * mirror has no server copy, a replace (an item, or a tombstone) with `If-Match` on the base's
 * `_etag`, in the item's own partition. A long queue then costs a request per hundred records, not per record
 * (on an account, each is a round trip). What the bulk request does not settle (a conflict, a
 * refusal, a throttled or failed operation, a record that needs a read first, the whole request
 * failing) goes on to the records' own requests, which know how to wait, retry and decide.
 *
 * `Items.bulk`, not `executeBulkOperations`: the SDK marks it deprecated, but the newer call waits
 * a second at least (it polls for its answers once a second), where a push of a few records
 * takes milliseconds. Where an SDK has no `bulk`, every record goes on its own.
 */
import type { JSONObject, OperationInput } from '@azure/cosmos'
import { transactionOf } from '../handle/internal.js'
import { SYNC_STORE } from '../layout/sync-stores.js'
import { partitionKeyOf, samePartition, tombstoneOf, toServer, type Mirror } from './context.js'
import type { Queued } from './outbox.js'
import { readBase, type Base } from './state.js'
import type { CosmosItem } from './types.js'

/** What the server holds after a push: an item, or nothing. */
export type Outcome = { item: CosmosItem } | { item: undefined }

/** Sends `records` in one bulk request: the outcomes of those it settled, and the rest. */
export async function sendBulk(mirror: Mirror, records: Queued[]): Promise<{ done: { record: Queued; outcome: Outcome }[]; rest: Queued[] }> {
  const { db, store } = mirror
  // The local items (live ones, as the handle reads them) and their bases, in one transaction.
  const [locals, bases] = await transactionOf(db, [store], 'readonly', (tx) =>
    Promise.all([
      Promise.all(records.map((record) => (record.op === 'put' ? (tx.get(store, record.key) as Promise<CosmosItem | undefined>) : undefined))),
      Promise.all(records.map((record) => readBase(tx.raw, store, record.key))),
    ]),
    { extra: [SYNC_STORE] },
  )
  const operations: (OperationInput | undefined)[] = records.map((record, i) => operationOf(mirror, String(record.key), locals[i], bases[i]))
  const sent = operations.filter((operation) => operation !== undefined)
  const { items } = mirror.container
  const results = sent.length === 0 || typeof items.bulk !== 'function' ? [] : await items.bulk(sent, { continueOnError: true }).catch(() => [])
  const byOperation = new Map(results.map((response, i) => [sent[i], response]))
  const done: { record: Queued; outcome: Outcome }[] = []
  const rest: Queued[] = []
  for (const [i, record] of records.entries()) {
    const operation = operations[i]
    const response = operation && byOperation.get(operation)
    // Without the item written (an answer that leaves it out), the record goes on its own too.
    if (response && response.statusCode < 300 && response.resourceBody) done.push({ record, outcome: { item: response.resourceBody as CosmosItem } })
    else rest.push(record)
  }
  return { done, rest }
}

/** The record's first attempt as a bulk operation, or `undefined` where it needs a read first. */
function operationOf(mirror: Mirror, id: string, local: CosmosItem | undefined, base: Base | undefined): OperationInput | undefined {
  if (local) {
    const resourceBody = toServer(mirror, local) as JSONObject
    const partitionKey = partitionKeyOf(mirror, resourceBody)
    if (!base) return { operationType: 'Create', partitionKey, resourceBody }
    // Its partition key edited: a move, two requests in order (`push.ts`).
    if (base.pk !== undefined && !samePartition(partitionKey, base.pk)) return undefined
    return { operationType: 'Replace', id, partitionKey, resourceBody, ifMatch: base.etag }
  }
  // A delete of an item never pushed, or whose partition the base does not say, reads first; a
  // plain delete goes on its own too (the SDK's bulk delete takes no If-Match).
  const soft = mirror.options.softDelete
  if (!base || base.pk === undefined || !soft || mirror.containerTtl === null) return undefined
  const resourceBody = tombstoneOf(mirror, id, base.pk, soft) as JSONObject
  return { operationType: 'Replace', id, partitionKey: base.pk, resourceBody, ifMatch: base.etag }
}
