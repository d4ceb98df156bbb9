/**
 * The server's clock (SPEC §12b): a copy keeps the server's `_ts`, which is the server's time,
 * while the store judges expiry by the device's clock. On a device whose clock is off, a copy
 * would die that far from the server's. So each round learns how far the device's clock is
 * from the server's, from the `date` of the round's first answer (the container's definition),
 * and every copy the round writes locally gets its `_ts` moved by that many whole seconds: it
 * then dies, by the device's clock, at the instant the server's copy does. The offset is kept
 * with the store (`SYNC_STORE`, `[store, 'clock']`) for the rounds that cannot read a `date`
 * (a browser that is not shown the header).
 *
 * The `date` is whole seconds: an answer places the server's time within a second, so an offset
 * under {@link NOISE_MS} is taken as none (a device in step gets the server's `_ts` itself), and
 * a kept offset changes only when an answer puts it more than {@link DRIFT_MS} off (not at every
 * round on a device whose offset is near a half second). A change re-reads the container
 * (`pull.ts`: the checkpoint and each item's base name the offset), so that every copy moves.
 */
import { SYNC_STORE } from '../layout/sync-stores.js'
import { req } from '../platform/request.js'

/** Offsets (ms) too small to tell from the `date` header's whole seconds and the round trip. */
const NOISE_MS = 1000
/** How far (ms) an answer must put the kept offset off for it to change. */
const DRIFT_MS = 1500

const clockKey = (store: string) => [store, 'clock']

/** The part of a mirror (`context.ts`) this reads and sets. */
interface Mirror {
  store: string
  internals: { native(): Promise<IDBDatabase> }
  /** How far the device's clock is ahead of the server's, whole seconds, as last learned. */
  offsetS?: number
  /** The server's time (epoch ms, a whole second) in the `date` of this round's first answer; none without one. */
  serverAt?: number
}

/**
 * Learns the offset from an answer's `date` header, read between `sentAt` and `receivedAt` (the
 * device's clock, ms); without one, takes the offset kept with the store.
 */
export async function learnOffset(mirror: Mirror, date: unknown, sentAt: number, receivedAt: number): Promise<void> {
  const serverMs = typeof date === 'string' ? Date.parse(date) : NaN
  mirror.serverAt = Number.isNaN(serverMs) ? undefined : serverMs
  const db = await mirror.internals.native()
  if (Number.isNaN(serverMs)) {
    mirror.offsetS = (await keptOffset(db, mirror.store)) ?? 0
    return
  }
  // The server's time was in [date, date + 1 s) when it answered, between sent and received.
  const offsetMs = (sentAt + receivedAt) / 2 - (serverMs + 500)
  const kept = mirror.offsetS ?? (await keptOffset(db, mirror.store))
  mirror.offsetS = kept
  if (kept !== undefined && Math.abs(offsetMs - kept * 1000) <= DRIFT_MS) return
  const offsetS = Math.abs(offsetMs) < NOISE_MS ? 0 : Math.round(offsetMs / 1000)
  mirror.offsetS = offsetS
  db.transaction(SYNC_STORE, 'readwrite').objectStore(SYNC_STORE).put(offsetS, clockKey(mirror.store))
}

function keptOffset(db: IDBDatabase, store: string): Promise<number | undefined> {
  return req(db.transaction(SYNC_STORE).objectStore(SYNC_STORE).get(clockKey(store)))
}

/** A server copy as the store keeps it: its `_ts` moved onto the device's clock. */
export function onDeviceClock<T extends { _ts?: number }>(mirror: Mirror, item: T): T {
  if (!mirror.offsetS || typeof item._ts !== 'number') return item
  return { ...item, _ts: item._ts + mirror.offsetS }
}

/** A time on the device's clock (epoch ms) on the server's. */
export function onServerClock(mirror: Mirror, ms: number): number {
  return ms - (mirror.offsetS ?? 0) * 1000
}
