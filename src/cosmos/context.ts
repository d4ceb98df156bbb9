/** What a pull and a push round share: the store, the container, the options, the status. */
import type { Container, PartitionKey } from '@azure/cosmos'
import type { TtlDB } from '../assembly/db.js'
import type { DefaultTtl } from '../rules/ttl.js'
import type { Internals } from './internals.js'
import type { RetryOptions } from './remote.js'
import { withRetry } from './remote.js'
import type { StatusBoard } from './status.js'
import type { CosmosItem, SyncOptions } from './types.js'
import { OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'
import { defaultTtlOf, followDefaultTtl } from '../handle/internal.js'
import { learnOffset } from './server-clock.js'
import type { Base } from './state.js'

export interface Mirror {
  db: TtlDB<any>
  store: string
  container: Container
  internals: Internals
  options: SyncOptions
  retry: RetryOptions
  board: StatusBoard
  /**
   * The container's partition key paths, each split into its fields (`[['tenant']]` for
   * `/tenant`; one per level of a hierarchical key: `[['tenant'], ['user']]`), once read.
   */
  pkPaths?: string[][]
  /** The container's `defaultTtl` as last read (`null`: TTL off). */
  containerTtl?: DefaultTtl
  /** The `_etag` of the container's definition as last read: a replace (a TTL changed) gives a new one. */
  containerEtag?: string
  /** How far the device's clock is ahead of the server's, whole seconds, as last learned (`server-clock.ts`). */
  offsetS?: number
  /** The server's time (epoch ms) in the `date` of this round's first answer, if it had one (`server-clock.ts`). */
  serverAt?: number
}

/** The server's own fields: never sent back, set by the server on every write. */
const SYSTEM_FIELDS = ['_ts', '_etag', '_rid', '_self', '_attachments', '_lsn']

/**
 * Reads the container's definition: its partition key paths, and its `defaultTtl` (absent →
 * `null`), which becomes the store's; and from its answer, the server's clock. Every round
 * starts with it.
 */
export async function describe(mirror: Mirror): Promise<void> {
  const { clock } = mirror.internals
  let sentAt = 0
  const { resource, headers } = await withRetry(() => ((sentAt = clock()), mirror.container.read()), mirror.retry)
  await learnOffset(mirror, headers?.date ?? headers?.Date, sentAt, clock())
  const paths = resource?.partitionKey?.paths ?? ['/id']
  mirror.pkPaths = paths.map((path) => path.split('/').filter(Boolean))
  const defaultTtl = (mirror.containerTtl = resource?.defaultTtl ?? null)
  mirror.containerEtag = resource?._etag
  const { db, store } = mirror
  if ((await defaultTtlOf(db, store)) !== defaultTtl) await followDefaultTtl(db, store, defaultTtl)
}

/**
 * The item's own partition key value, read from the container's key paths: one value, or one
 * per level of a hierarchical key (as the SDK's point operations take it).
 */
export function partitionKeyOf(mirror: Mirror, item: Record<string, unknown>): PartitionKey {
  const values = (mirror.pkPaths ?? [['id']]).map((path) => {
    let value: unknown = item
    for (const part of path) value = (value as Record<string, unknown> | undefined)?.[part]
    return value
  })
  return (values.length === 1 ? values[0] : values) as PartitionKey
}

/** Whether two partition key values (one level or several) name the same partition. */
export function samePartition(a: PartitionKey | undefined, b: PartitionKey | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** What a local copy of the server's `item` is in step with (`state.ts`). */
export function baseOf(mirror: Mirror, item: CosmosItem): Base {
  return { etag: item._etag!, pk: partitionKeyOf(mirror, item), offsetS: mirror.offsetS ?? 0 }
}

/** Whether two items hold the same fields and values, the server's own fields aside (in any order). */
export function sameBody(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const canonical = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(canonical)
    if (value === null || typeof value !== 'object') return value
    const entries = Object.entries(value).filter(([field]) => !SYSTEM_FIELDS.includes(field))
    return Object.fromEntries(entries.sort(([x], [y]) => (x < y ? -1 : 1)).map(([field, inner]) => [field, canonical(inner)]))
  }
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b))
}

/** Sets `value` at `path` in `body`, creating the objects on the way. */
function setAt(body: Record<string, unknown>, path: string[], value: unknown): void {
  let parent = body
  for (const part of path.slice(0, -1)) parent = (parent[part] ??= {}) as Record<string, unknown>
  parent[path[path.length - 1]] = value
}

/** A local item as the server takes it: without system fields, with the mirror's partition key. */
export function toServer(mirror: Mirror, item: Record<string, unknown>): CosmosItem {
  const body: Record<string, unknown> = structuredClone(item)
  for (const field of SYSTEM_FIELDS) delete body[field]
  if (mirror.options.partitionKey !== undefined && mirror.pkPaths) setAt(body, mirror.pkPaths[0], mirror.options.partitionKey)
  return body as CosmosItem
}

/**
 * A tombstone of `id` (see `SyncOptions.softDelete`): the marker, its `ttl`, and the item's full
 * partition key (every level), so that it replaces the item in the item's own partition.
 */
export function tombstoneOf(mirror: Mirror, id: string, pk: PartitionKey | undefined, soft: { field: string; ttl: number }): CosmosItem {
  const body: Record<string, unknown> = { id }
  const paths = mirror.pkPaths ?? [['id']]
  const values = paths.length === 1 ? [pk] : Array.isArray(pk) ? pk : []
  for (const [i, path] of paths.entries()) if (values[i] !== undefined && path.join('/') !== 'id') setAt(body, path, values[i])
  Object.assign(body, { [soft.field]: true, ttl: soft.ttl })
  return toServer(mirror, body)
}

/** Cosmos SQL for the mirror's scope: the partition key value and the app's filter. */
export function scopeOf(mirror: Mirror): { where: string[]; parameters: { name: string; value: string | number | boolean | null }[] } {
  const where: string[] = []
  const parameters: { name: string; value: string | number | boolean | null }[] = []
  if (mirror.options.partitionKey !== undefined && mirror.pkPaths) {
    where.push(`c${mirror.pkPaths[0].map((part) => `[${JSON.stringify(part)}]`).join('')} = @idbTtlPk`)
    parameters.push({ name: '@idbTtlPk', value: mirror.options.partitionKey })
  }
  if (mirror.options.filter) {
    where.push(`(${mirror.options.filter.where})`)
    parameters.push(...(mirror.options.filter.parameters ?? []))
  }
  return { where, parameters }
}

/**
 * Cosmos SQL for the scope's live items: {@link scopeOf}, tombstones left out (an id may have one
 * in another partition beside its live copy: a moved item's old copy, `push.ts`).
 */
export function liveScopeOf(mirror: Mirror): ReturnType<typeof scopeOf> {
  const { where, parameters } = scopeOf(mirror)
  const soft = mirror.options.softDelete
  const field = soft ? `c[${JSON.stringify(soft.field)}]` : undefined
  return { where: [...where, ...(field ? [`NOT (IS_BOOL(${field}) AND ${field})`] : [])], parameters }
}

/**
 * Query options that keep a mirror of one partition key value to that partition: on an account a
 * query without them fans out to every partition (the SQL's condition alone does not route it).
 */
export function inPartition(mirror: Mirror): { partitionKey?: PartitionKey } {
  const { partitionKey } = mirror.options
  if (partitionKey === undefined) return {}
  // Of a hierarchical key, the first level: a prefix, which the SDK takes as an array.
  return { partitionKey: (mirror.pkPaths?.length ?? 1) > 1 ? [partitionKey] : partitionKey }
}

/** Whether a server item is a tombstone (see `SyncOptions.softDelete`). */
export function isTombstone(mirror: Mirror, item: Record<string, unknown> | undefined): boolean {
  const soft = mirror.options.softDelete
  return item !== undefined && soft !== false && soft !== undefined && item[soft.field] === true
}

/** Runs `read` in a read-only transaction over the mirror's own stores. */
export async function readOnly<T>(mirror: Mirror, read: (tx: IDBTransaction) => Promise<T>): Promise<T> {
  const tx = (await mirror.internals.native()).transaction([SYNC_STORE, OUTBOX_STORE])
  return read(tx)
}
