/** What a pull and a push round share: the store, the container, the options, the status. */
import type { Container, PartitionKey } from '@azure/cosmos'
import type { TtlDB } from '../db.js'
import type { DefaultTtl } from '../rules/ttl.js'
import type { Internals } from './internals.js'
import type { RetryOptions } from './remote.js'
import { withRetry } from './remote.js'
import type { StatusBoard } from './status.js'
import type { CosmosItem, SyncOptions } from './types.js'
import { OUTBOX_STORE, SYNC_STORE } from '../layout/sync-stores.js'

export interface Mirror {
  db: TtlDB<any>
  store: string
  container: Container
  internals: Internals
  options: SyncOptions
  retry: RetryOptions
  board: StatusBoard
  /** The container's partition key path (`['tenant']` for `/tenant`), once read. */
  pkPath?: string[]
  /** The container's `defaultTtl` as last read (`null`: TTL off). */
  containerTtl?: DefaultTtl
}

/** The server's own fields: never sent back, set by the server on every write. */
const SYSTEM_FIELDS = ['_ts', '_etag', '_rid', '_self', '_attachments', '_lsn']

/**
 * Reads the container's definition: its partition key path, and its `defaultTtl` (absent →
 * `null`), which becomes the store's.
 */
export async function describe(mirror: Mirror): Promise<void> {
  const { resource } = await withRetry(() => mirror.container.read(), mirror.retry)
  const path = resource?.partitionKey?.paths?.[0] ?? '/id'
  mirror.pkPath = path.split('/').filter(Boolean)
  const defaultTtl = (mirror.containerTtl = resource?.defaultTtl ?? null)
  const { db, store } = mirror
  if ((await db.getDefaultTtl(store)) !== defaultTtl) await db.setDefaultTtl(store, defaultTtl)
}

/** The item's partition key value (the mirror's when it has one). */
export function partitionKeyOf(mirror: Mirror, item: Record<string, unknown>): PartitionKey {
  if (mirror.options.partitionKey !== undefined) return mirror.options.partitionKey
  let value: unknown = item
  for (const part of mirror.pkPath ?? ['id']) value = (value as Record<string, unknown> | undefined)?.[part]
  return value as PartitionKey
}

/** A local item as the server takes it: without system fields, with the mirror's partition key. */
export function toServer(mirror: Mirror, item: Record<string, unknown>): CosmosItem {
  const body: Record<string, unknown> = structuredClone(item)
  for (const field of SYSTEM_FIELDS) delete body[field]
  if (mirror.options.partitionKey !== undefined && mirror.pkPath) {
    let parent = body
    for (const part of mirror.pkPath.slice(0, -1)) parent = (parent[part] ??= {}) as Record<string, unknown>
    parent[mirror.pkPath[mirror.pkPath.length - 1]] = mirror.options.partitionKey
  }
  return body as CosmosItem
}

/** Cosmos SQL for the mirror's scope: the partition key value and the app's filter. */
export function scopeOf(mirror: Mirror): { where: string[]; parameters: { name: string; value: string | number | boolean | null }[] } {
  const where: string[] = []
  const parameters: { name: string; value: string | number | boolean | null }[] = []
  if (mirror.options.partitionKey !== undefined && mirror.pkPath) {
    where.push(`c${mirror.pkPath.map((part) => `[${JSON.stringify(part)}]`).join('')} = @idbTtlPk`)
    parameters.push({ name: '@idbTtlPk', value: mirror.options.partitionKey })
  }
  if (mirror.options.filter) {
    where.push(`(${mirror.options.filter.where})`)
    parameters.push(...(mirror.options.filter.parameters ?? []))
  }
  return { where, parameters }
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
