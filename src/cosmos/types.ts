/** The public types of `idb-ttl/cosmos`. */

/** A document as the server holds it: `id`, the user's fields, and the system fields `_ts`, `_etag`. */
export type CosmosItem = Record<string, unknown> & { id: string; _ts?: number; _etag?: string }

/** What a sync is doing, for the UI. */
export type SyncState = 'idle' | 'pulling' | 'pushing' | 'offline' | 'error'

export interface SyncStatus {
  state: SyncState
  /**
   * Local writes waiting to be pushed (as of the last look at the outbox; during a push, those
   * queued when it began less those it has settled: writes made meanwhile count once it ends).
   */
  pending: number
  /** Items the pull under way (or the last) brought in. */
  pulled: number
  /** Writes the push under way (or the last) sent. */
  pushed: number
  /** Local writes the server refused and server copies the store refused, set aside ({@link CosmosSync.rejected}). */
  rejected: number
  /** Why the last round failed (`state` `'error'` or `'offline'`), by name and message. */
  error?: { name: string; message: string }
}

/**
 * A local write the server refused for itself (400: an item it cannot take; 409: a unique-key
 * clash; 413: over its size limit), set aside so that the writes queued after it are pushed; or
 * (`op: 'pull'`) a server copy the store refused, set aside so that the pull goes on.
 */
export interface Rejected {
  /** The item's `id` (its local key). */
  key: string
  /**
   * What was pushed: the item (`'put'`) or its delete; `'pull'`: the server's copy, which the
   * store refused (an item `ttl` it cannot take, such as `0` or `"1h"`, which a container with
   * TTL off keeps): the local item stays as it was until a copy the store takes comes in.
   */
  op: 'put' | 'delete' | 'pull'
  /** When the local write happened, epoch ms (the connection's clock); of a `'pull'`, the copy's `_ts` in ms. */
  at: number
  /** The server's answer: its HTTP status, and its message; of a `'pull'`, 0 and the store's message. */
  status: number
  message: string
}

/** A local write whose base changed on the server since it was pulled (or pushed). */
export interface Conflict {
  /** The item's `id` (its local key). */
  key: string
  /** The local item (`undefined`: a local delete). */
  local: CosmosItem | undefined
  /**
   * When the local write happened, epoch ms on the server's clock (the connection's clock moved
   * by the offset the mirror learned from the server's answers), so that it compares with `_ts`.
   */
  localAt: number
  /**
   * The server's copy now: `undefined` when it was deleted there outright, a tombstone (an item
   * with the `softDelete` field `true`) when another replica deleted it softly. The default
   * policy treats a tombstone as the write it is: a delete at its `_ts`.
   */
  server: CosmosItem | undefined
}

/**
 * How a conflict ends: `'local'` pushes the local write over the server's copy, `'server'` keeps
 * the server's copy and drops the local write, an item pushes that item (a merge).
 */
export type Resolution = 'local' | 'server' | CosmosItem

/** Options of {@link syncCosmos}. */
export interface SyncOptions {
  /**
   * Mirror the items of this partition key value only (the usual case in a browser: one user's or
   * one tenant's items). Omitted: the whole container, whose `id`s must then be unique across
   * partitions (the local key is the `id`). Local writes get it in the partition key field. With
   * a hierarchical key, the first level's value (the mirror holds that prefix).
   */
  partitionKey?: string | number | boolean | null
  /**
   * A further condition of the pull, in Cosmos SQL over `c` (`"c.kind = @kind"`), with its
   * parameters: the mirror holds the items that match.
   */
  filter?: { where: string; parameters?: { name: string; value: string | number | boolean | null }[] }
  /**
   * Decides conflicts; default: last writer wins on `_ts`, as in Cosmos DB (docs/cosmos.md). It
   * may be deciding for several items at once, and is asked again for an item whose server copy
   * changed while it decided.
   */
  onConflict?: (conflict: Conflict) => Resolution | Promise<Resolution>
  /**
   * How local deletes reach other replicas, whose pulls never see a delete (the change feed in
   * latest-version mode and `_ts` queries show none): `{ field, ttl }` (default
   * `{ field: '_idbTtlDeleted', ttl: 60 }`, a field no app's own data is likely to use) replaces
   * the server's item with a tombstone `{ id, <field>: true, ttl }` (and the item's partition key
   * fields) that the server removes after `ttl` seconds, and every pull deletes the local copy of
   * an item that carries the field. `false`: deletes are plain deletes. Either way a container
   * with TTL off gets plain deletes (it would keep a tombstone for ever).
   */
  softDelete?: { field: string; ttl: number } | false
  /**
   * Every this many ms, the connection elected puller (one per origin, by a Web Lock) pulls then
   * pushes, and at once when the browser comes back online. Omitted: only when called.
   */
  intervalMs?: number
  /**
   * Most retries of one request after a transient answer (408, 410, 449, 5xx); 429s are waited
   * out as the server tells. Default 5.
   */
  maxRetries?: number
  /** First back-off after a transient answer, in ms, doubled each time; default 250. */
  backoffMs?: number
  /**
   * What all the waits of one round (429s and back-offs, the SDK's own retries included) may add
   * up to, in ms; default 60000. A wait that would overrun it is not begun, and a request still
   * unanswered when it runs out (or after a second, whichever is later) is given up: the round
   * ends as `'error'`, the outbox kept and the round's Web Lock released, and the next round
   * starts afresh.
   */
  maxWaitMs?: number
}

/**
 * A mirror started by {@link syncCosmos}. A store is mirrored in one scope at a time, for every
 * tab: once a later `syncCosmos` (in this tab or another) makes the store mirror another
 * container, partition key value or filter, this sync stops for good; its calls then reject with
 * `TtlError` `CLOSED`, and its status is `'error'` saying so.
 */
export interface CosmosSync {
  /**
   * One pull round: the container's `defaultTtl`, then every item changed since the checkpoint.
   * Resolves to how many items it brought in. `{ full: true }` also deletes the local items the
   * server no longer has (deleted there without a tombstone).
   */
  pull(options?: { full?: boolean }): Promise<number>
  /** One push round: every queued local write, in order; resolves to how many it sent. */
  push(): Promise<number>
  /**
   * The local writes the server refused and the mirror set aside (one per key, the latest), with
   * the server's answer. A set-aside write stays in the store, unpushed, until {@link retry} or
   * {@link discard}, or until a later write of the item is pushed (a pull leaves it alone, as it
   * does a queued write). Then the server copies the store refused (`op: 'pull'`), until a copy
   * it takes comes in, the item is deleted on the server, a write of it is pushed, or
   * {@link discard}.
   */
  rejected(): Promise<Rejected[]>
  /**
   * Queues the set-aside write of `key` (every one when omitted) again, as it was, for the next
   * push: for a refusal the server may not repeat (a unique key freed since). Resolves to how many.
   */
  retry(key?: string): Promise<number>
  /**
   * Gives up the set-aside write of `key`: the server's copy (or its absence) becomes the local
   * item again, read from the server now; of a refused server copy, forgets it (the local item
   * stays as it is). Resolves to `false` when nothing of `key` was set aside.
   * @throws {@link OfflineError} without a network (the write stays set aside)
   */
  discard(key: string): Promise<boolean>
  /** Calls `listener` with the status now and on every change; returns a function that removes it. */
  onStatus(listener: (status: SyncStatus) => void): () => void
  /** The status now. */
  readonly status: SyncStatus
  /** Stops the timer, stops queueing local writes, and gives up the puller's lock. */
  stop(): void
}
