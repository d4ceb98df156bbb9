/**
 * What a full handle keeps up about the storage its database lives in, where the app asks for
 * it: the registry of databases seen (`onLost`, `lost.ts`) and the bucket's expiry after its
 * items (`bucket.expiresAfterItems`, `bucket-expiry.ts`), both run at rest (`at-rest.ts`).
 */
import { atRest } from './at-rest.js'
import { followItems } from './bucket-expiry.js'
import type { CoreParts } from './core-parts.js'
import { checkLost } from './lost.js'
import type { Connection } from '../layout/connection.js'
import type { StoreConfigs } from '../layout/schema.js'
import { bucketOf } from '../platform/factory.js'
import type { BucketOptions } from '../rules/bucket-options.js'
import type { LostReport } from '../rules/types.js'

export interface WatchOptions {
  name: string
  stores: StoreConfigs
  clock: () => number
  connection: Connection
  parts: CoreParts
  bucket: BucketOptions | undefined
  onLost: ((report: LostReport) => void) | undefined
}

/**
 * Starts what the options ask for, until the handle closes; resolves to the loss found at open
 * (told to `onLost` first). Nothing runs when neither is asked for.
 */
export async function watchStorage(options: WatchOptions): Promise<LostReport | undefined> {
  const { name, stores, clock, connection, parts, onLost } = options
  const names = Object.keys(stores)
  const bucket = bucketOf(name)
  const work: (() => Promise<void>)[] = []
  let lost: LostReport | undefined
  if (onLost) {
    const found = await checkLost(name, bucket?.name ?? null, connection, names, clock)
    lost = found.lost
    work.push(found.record)
    if (lost) {
      try {
        onLost(lost)
      } catch (error) {
        // The app's callback failing is the app's to see, not a failed open.
        setTimeout(() => {
          throw error
        })
      }
    }
  }
  if (bucket && options.bucket?.expiresAfterItems) {
    const follow = followItems(bucket, connection, names)
    work.push(follow)
    follow().catch(() => {})
  }
  if (work.length === 0) return lost
  const rest = atRest(async () => {
    for (const run of work) await run().catch(() => {})
  })
  parts.watcher = {
    changed: () => rest.changed(),
    closing() {
      rest.stop()
      // Called directly, not after a run under way: each starts its transaction before the connection closes.
      for (const run of work) run().catch(() => {})
    },
  }
  return lost
}
