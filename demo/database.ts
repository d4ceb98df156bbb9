/** The demo's database: its three stores, options read from the query string, and reset. */
import { deleteDB } from 'idb'
import { openTtlDB, type TtlDB } from '../src/index.js'

export interface DemoItem {
  id?: string
  seq?: number
  note?: string
  ttl?: unknown
  _ts?: number
}

export interface StoreInfo {
  name: 'sessions' | 'events' | 'prefs'
  keyPath: 'id' | 'seq'
  declared: number | null
  blurb: string
}

export const STORES: StoreInfo[] = [
  { name: 'sessions', keyPath: 'id', declared: 30, blurb: 'default 30 s: items expire 30 s after their last write' },
  { name: 'events', keyPath: 'seq', declared: -1, blurb: 'default -1: TTL on, only items with their own ttl expire' },
  { name: 'prefs', keyPath: 'id', declared: null, blurb: 'no default: TTL off, nothing expires, whatever its ttl' },
]

export interface DemoParams {
  dbName: string
  purge: { maxIntervalMs?: number; batchSize?: number; sliceMs?: number }
}

/** `?db=<name>&maxIntervalMs=500&batchSize=300&sliceMs=8`: all optional. */
export function readParams(search: string): DemoParams {
  const q = new URLSearchParams(search)
  const num = (key: string) => {
    const v = Number(q.get(key))
    return q.has(key) && Number.isFinite(v) && v > 0 ? v : undefined
  }
  return {
    dbName: q.get('db') || 'idb-ttl-demo',
    purge: { maxIntervalMs: num('maxIntervalMs'), batchSize: num('batchSize'), sliceMs: num('sliceMs') },
  }
}

export type DemoDB = TtlDB<unknown>

export function openDemoDB(params: DemoParams): Promise<DemoDB> {
  const purge = Object.fromEntries(Object.entries(params.purge).filter(([, v]) => v !== undefined))
  return openTtlDB(params.dbName, {
    version: 1,
    stores: {
      sessions: { keyPath: 'id', defaultTtl: 30 },
      events: { keyPath: 'seq', autoIncrement: true, defaultTtl: -1 },
      prefs: { keyPath: 'id' },
    },
    purge: { mode: 'worker', ...purge },
  })
}

/** Closes our connection and deletes the database; `onBlocked` when another tab holds it open. */
export async function resetDemo(db: DemoDB, name: string, onBlocked: () => void): Promise<void> {
  db.close()
  await deleteDB(name, { blocked: onBlocked })
}
