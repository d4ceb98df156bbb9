/**
 * Seeded data shared by ours and every peer: the same items, the same keys expired, the same
 * keys read. Expiry comes from a clock the scenarios move, never from waiting.
 */

/** Where every scenario's clock starts: epoch ms on a whole second. */
const T0 = 1_700_000_000_000
/** The store default in every scenario, seconds. */
export const DEFAULT_TTL = 3600
/**
 * Items that are to expire are written from T0 on, the others from LIVE_WRITE on, in batches of
 * 1000 a second apart (as an app syncing in bulk would: items of a batch share their `_ts`).
 * Reads and purges happen at NOW, when the first are all dead and the others all live.
 */
const LIVE_WRITE = T0 + 3000_000
export const NOW = T0 + 3700_000
const WRITE_BATCH = 1000

export interface Item {
  id: number
  user: string
  n: number
  payload: string
}

/** A clock the scenarios move by hand (epoch ms). */
export function manualClock(startMs = T0) {
  let now = startMs
  return Object.assign(() => now, { set: (ms: number) => void (now = ms) })
}

/** mulberry32: a small, fast, seeded PRNG in [0, 1). */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export function item(id: number): Item {
  return { id, user: `u${id % 97}`, n: id * 7, payload: `payload-${id}-`.padEnd(96, 'x') }
}

/** `count` items, the ids 0 … count-1 in a seeded shuffled order (as writes arrive). */
export function items(count: number, seed = 1): Item[] {
  const random = rng(seed)
  const list = Array.from({ length: count }, (_, i) => item(i))
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[list[i], list[j]] = [list[j], list[i]]
  }
  return list
}

/**
 * A store's content at NOW: `count` items of which `expired` are dead. The dead ones are the
 * first `expired` of the shuffle (spread over the key space) unless `contiguous`, when they
 * are the ids 0 … expired-1.
 */
export interface Dataset {
  dead: Item[]
  live: Item[]
}

export function dataset(count: number, expired: number, { contiguous = false, seed = 1 } = {}): Dataset {
  const all = contiguous ? Array.from({ length: count }, (_, i) => item(i)) : items(count, seed)
  return { dead: all.slice(0, expired), live: all.slice(expired) }
}

/** `count` keys of live items to read, seeded. */
export function liveKeys(data: Dataset, count: number, seed = 2): number[] {
  const random = rng(seed)
  return Array.from({ length: count }, () => data.live[Math.floor(random() * data.live.length)].id)
}

let databases = 0
/** A database name no earlier trial used. */
export function freshName(prefix: string): string {
  return `bench-${prefix}-${Date.now()}-${databases++}`
}

/** How a dataset gets written: batches of items, each with the epoch ms it is written at. */
export function writeBatches(data: Dataset): { at: number; items: Item[] }[] {
  const batches = (items: Item[], start: number) =>
    Array.from({ length: Math.ceil(items.length / WRITE_BATCH) }, (_, b) => ({
      at: start + b * 1000,
      items: items.slice(b * WRITE_BATCH, (b + 1) * WRITE_BATCH),
    }))
  return [...batches(data.dead, T0), ...batches(data.live, LIVE_WRITE)]
}
