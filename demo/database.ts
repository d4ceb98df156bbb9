/**
 * The demo's database: the first screen's `tour` store, the six stores of the live panels, the
 * offline mirror of section 7's Cosmos DB container, options read from the query string, and reset.
 */
import { deleteDB } from 'idb'
import { openTtlDB, type TtlDB } from '../src/index.js'

export interface DemoItem {
  id?: string
  seq?: number
  note?: string
  ttl?: unknown
  _ts?: number
}

/** The store of the first screen's tour (demo/tour.ts): one item at a time, living 10 s. */
export const TOUR_STORE = 'tour'
export const TOUR_TTL = 10
/**
 * Section 7's mirror of a Cosmos DB container (demo/cosmos-panel.ts): keyed by `id`, keeping the
 * server's `_ts`; its `defaultTtl` becomes the container's at the first pull.
 */
export const MIRROR_STORE = 'mirror'
/** Raised with each store the demo adds (4: `tour`; 5: `mirror` and the mirror's own stores). */
export const DB_VERSION = 5

export interface StoreInfo {
  name: 'sessions' | 'events' | 'prefs' | 'active' | 'recent' | 'cache'
  keyPath: 'id' | 'seq'
  declared: number | null
  blurb: string
  /** `touchOnRead`: every read restarts an item's countdown. */
  sliding?: boolean
}

export const STORES: StoreInfo[] = [
  { name: 'sessions', keyPath: 'id', declared: 30, blurb: 'default 30 s: items expire 30 s after their last write' },
  { name: 'events', keyPath: 'seq', declared: -1, blurb: 'default -1: TTL on, only items with their own ttl expire; section 4 adds 10,000 at once' },
  { name: 'prefs', keyPath: 'id', declared: null, blurb: 'no default: TTL off, nothing expires, whatever its ttl' },
  { name: 'active', keyPath: 'id', declared: 15, sliding: true, blurb: 'touchOnRead, default 15 s: a sliding session, alive while it is read' },
  { name: 'recent', keyPath: 'id', declared: 600, blurb: "maxEntries 5: add a sixth item and the oldest leaves (reason 'evicted')" },
  { name: 'cache', keyPath: 'id', declared: 3600, blurb: 'evictOnQuota: when the disk is full it gives way, so a write still fits; no other store loses a live item (fill it from section 4)' },
]

export interface DemoParams {
  dbName: string
  purge: { maxIntervalMs?: number; batchSize?: number; sliceMs?: number }
  /** `?fill=<n>`: how many items "Fill the disk" writes. */
  fill: number
  /** `?view=second`: the compact page the demo embeds as its second frame. */
  second: boolean
}

/** `?db=<name>&maxIntervalMs=500&batchSize=300&sliceMs=8&fill=300`: all optional. */
export function readParams(search: string): DemoParams {
  const q = new URLSearchParams(search)
  const num = (key: string) => {
    const v = Number(q.get(key))
    return q.has(key) && Number.isFinite(v) && v > 0 ? v : undefined
  }
  return {
    dbName: q.get('db') || 'idb-ttl-demo',
    purge: { maxIntervalMs: num('maxIntervalMs'), batchSize: num('batchSize'), sliceMs: num('sliceMs') },
    fill: Math.ceil(num('fill') ?? 300),
    second: q.get('view') === 'second',
  }
}

export type DemoDB = TtlDB<unknown>

/**
 * Opens the demo's database. The second frame passes `{ mode: 'off' }`: it only listens, so the
 * main page stays the purger and its purge log the one that fills.
 */
export function openDemoDB(params: DemoParams, purgeMode: 'worker' | 'off' = 'worker'): Promise<DemoDB> {
  const purge = Object.fromEntries(Object.entries(params.purge).filter(([, v]) => v !== undefined))
  return openTtlDB(params.dbName, {
    version: DB_VERSION,
    stores: {
      [TOUR_STORE]: { keyPath: 'id', defaultTtl: TOUR_TTL },
      sessions: { keyPath: 'id', defaultTtl: 30 },
      events: { keyPath: 'seq', autoIncrement: true, defaultTtl: -1 },
      prefs: { keyPath: 'id' },
      active: { keyPath: 'id', defaultTtl: 15, touchOnRead: true },
      recent: { keyPath: 'id', defaultTtl: 600, maxEntries: 5 },
      cache: { keyPath: 'id', defaultTtl: 3600, evictOnQuota: true },
      [MIRROR_STORE]: { keyPath: 'id', mirror: true },
    },
    purge: { mode: purgeMode, ...purge },
  })
}

/** Closes our connection and deletes the database; `onBlocked` when another tab holds it open. */
export async function resetDemo(db: DemoDB, name: string, onBlocked: () => void): Promise<void> {
  db.close()
  await deleteDB(name, { blocked: onBlocked })
}
