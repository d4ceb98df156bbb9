/**
 * What a worker realm (dedicated, shared, service) does on the page's messages: it opens idb-ttl
 * stores under a clock of its own, which only the page's `clock` messages move, runs their
 * methods, and says what is on the disk and what its listeners heard. The page side is client.ts.
 */
import { openTtlDB, type ExpireEvent, type OpenTtlDBOptions, type PurgeReport, type TtlDB } from '../../../src/index.js'

export type Request =
  /** Which global this is (its constructor's name), whether it has `Worker`, and this realm's id. */
  | { op: 'hello' }
  /** Moves this realm's clock (`advance` ms on, or `set` to an epoch ms); answers the time. */
  | { op: 'clock'; advance?: number; set?: number }
  | { op: 'open'; name: string; options: Omit<OpenTtlDBOptions, 'clock'> }
  /** `db[method](...args)`, awaited. */
  | { op: 'call'; name: string; method: string; args?: unknown[] }
  | { op: 'isPurger'; name: string }
  /** What is physically in the store: every key, expired or not, through the handle's raw view. */
  | { op: 'disk'; name: string; store: string }
  /** What the handle's onExpire and onPurge listeners heard so far. */
  | { op: 'heard'; name: string }
  /** The nested workers this realm started, and what the library said on console.warn. */
  | { op: 'spies' }
  | { op: 'close'; name: string }
  /** Closes every handle this realm opened (before the page deletes the databases). */
  | { op: 'closeAll' }
  /**
   * Service worker only (store-sw.ts): `db.purgeDuring(event, budgetMs)` on this message's event;
   * answers at once. When it settles, the realm counts what is left in `store` on the disk.
   * `handOver: 'late'` hands the event over a task after its handler returned (its dispatch is
   * over, nothing extends it); `'budget'` passes the budget where the event goes, `purgeDuring(budgetMs)`.
   */
  | { op: 'purgeDuring'; name: string; store: string; budgetMs?: number; handOver?: 'late' | 'budget' }
  /** Service worker only: how the promises purgeDuring returned settled so far, after how long, and what they left. */
  | { op: 'purgesDuring' }

export type Reply = { ok: true; value: unknown; realm: string } | { ok: false; error: { name: string; message: string; code?: string }; realm: string }

export interface Heard {
  expired: ExpireEvent[]
  reports: PurgeReport[]
}

/** This realm's id: a restarted worker has a new one. */
export const realm = crypto.randomUUID()

let now = 1_700_000_000_000
const clock = () => now

const dbs = new Map<string, { db: TtlDB; heard: Heard }>()

/** Counts the nested workers the library starts here (where `Worker` exists). */
const nested = { started: 0 }
const OriginalWorker = (globalThis as { Worker?: typeof Worker }).Worker
if (typeof OriginalWorker === 'function') {
  ;(globalThis as { Worker?: typeof Worker }).Worker = class extends OriginalWorker {
    constructor(url: string | URL, options?: WorkerOptions) {
      super(url, options)
      nested.started++
    }
  }
}

/** The library's console.warn messages (they still print). */
const warnings: string[] = []
const warn = console.warn.bind(console)
console.warn = (...args: unknown[]) => {
  if (String(args[0]).startsWith('idb-ttl:')) warnings.push(String(args[0]))
  warn(...args)
}

export function opened(name: string): TtlDB {
  const entry = dbs.get(name)
  if (!entry) throw new Error(`no database "${name}" open in this realm`)
  return entry.db
}

async function run(request: Request, open: typeof openTtlDB): Promise<unknown> {
  switch (request.op) {
    case 'hello':
      return { global: globalThis.constructor.name, hasWorker: typeof OriginalWorker === 'function' }
    case 'clock':
      if (request.set !== undefined) now = request.set
      now += request.advance ?? 0
      return now
    case 'open': {
      const db = await open(request.name, { ...request.options, clock })
      const heard: Heard = { expired: [], reports: [] }
      db.onExpire((event) => heard.expired.push(event))
      db.onPurge((report) => heard.reports.push(report))
      dbs.set(request.name, { db, heard })
      return undefined
    }
    case 'call': {
      const db = opened(request.name) as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>
      return await db[request.method](...(request.args ?? []))
    }
    case 'isPurger':
      return opened(request.name).isPurger
    case 'disk': {
      const raw = opened(request.name).raw
      return { count: await raw.count(request.store), keys: await raw.getAllKeys(request.store) }
    }
    case 'heard':
      return dbs.get(request.name)?.heard
    case 'spies':
      return { nestedWorkers: nested.started, warnings }
    case 'close':
      dbs.get(request.name)?.db.close()
      dbs.delete(request.name)
      return undefined
    case 'closeAll':
      for (const { db } of dbs.values()) db.close()
      dbs.clear()
      return undefined
    case 'purgeDuring':
    case 'purgesDuring':
      throw new Error(`${request.op} runs only in the service worker (store-sw.ts)`)
  }
}

/**
 * Runs a request; never rejects: a failure is a reply too. `open` is the entry's `openTtlDB`:
 * `idb-ttl`'s in dedicated and shared workers, `idb-ttl/service-worker`'s in the service worker
 * (the page entry loads parts of itself with `import()`, which service workers forbid: issue #44).
 */
export async function handle(request: Request, open: typeof openTtlDB = openTtlDB): Promise<Reply> {
  try {
    return { ok: true, value: await run(request, open), realm }
  } catch (error) {
    const { name = 'Error', message = String(error), code } = (error ?? {}) as { name?: string; message?: string; code?: string }
    return { ok: false, error: { name, message, ...(code !== undefined && { code }) }, realm }
  }
}
