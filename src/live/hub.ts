/**
 * One handle's live queries: it makes them (`db.live`) and stops its own when the handle closes.
 * What tells every live query of the database that stores changed is the handle's
 * `Presence` (`notices.ts`, held by `handle/core-parts.ts`), which handles without live queries
 * (`idb-ttl/core`'s) need as well.
 */
import { kindOf, TtlError } from '../rules/errors.js'
import { checkKnownOptions } from '../rules/option-hint.js'
import { ReadScope, type Reading } from '../reads/reads.js'
import { slides } from '../reads/owed-touches.js'
import { asOwed } from '../reads/touched.js'
import { joinBus } from '../platform/bus.js'
import { listening, realm, tellRealm } from './notices.js'
import { LiveQuery, type LiveRealm, type LiveSource } from './query.js'
import type { LiveOptions } from './result.js'

/**
 * The realm's registries a live query uses, handed to what the page entries load at its first
 * subscription (`subscribers.ts`), never imported by it: whichever copy of it loads (a page may
 * hold two copies of the library) hears changes and judges items in its handle's realm.
 */
export const liveRealm: LiveRealm = { hearing: { realm, listening, joinBus, tellRealm }, ReadScope, slides, asOwed }

export class LiveHub {
  closed = false
  /** The queries that run or wait for what runs them (`query.ts`): closed with the handle. */
  private readonly queries = new Set<{ close(): void }>()

  constructor(
    private readonly dbName: string,
    private readonly clock: () => number,
    /** The handle's reading of generations (a live query counts the touches owed, and makes none: `result.ts`). */
    private readonly reading: Pick<Required<Reading>, 'generations'>,
    /** What follows a subscribed query (`follow.ts`), as the entry loads it. */
    private readonly follow: LiveSource['follow'],
  ) {}

  /**
   * A live query of `store` on the connection `connect` gives (which checks the store).
   * @throws TtlError `INVALID_OPTION` for malformed options or an unknown option name
   */
  query<T>(store: string, connect: () => Promise<IDBDatabase>, options: LiveOptions = {}): LiveQuery<T> {
    const { dbName, clock, reading, follow } = this
    return new LiveQuery<T>({ dbName, store, clock, connect, options: checkOptions(store, options), reading, realm: liveRealm, owner: this, follow })
  }

  close(): void {
    this.closed = true
    for (const query of [...this.queries]) query.close()
  }

  /** A query that started: closed with the handle. */
  add(query: { close(): void }): void {
    this.queries.add(query)
  }

  /** A query that stopped. */
  delete(query: { close(): void }): void {
    this.queries.delete(query)
  }
}

/** The options `db.live` takes. */
const LIVE_OPTIONS = ['index', 'query', 'count']

/** `db.live` options as TypeScript would have them, and no others: a misspelt `index` would read the whole store. */
function checkOptions(store: string, options: unknown): LiveOptions {
  if (options === null || typeof options !== 'object') {
    throw new TtlError('INVALID_OPTION', `db.live options must be an object ({ index, query, count }); got ${kindOf(options)}`)
  }
  checkKnownOptions(`db.live("${store}") options`, options, LIVE_OPTIONS)
  const { index, query, count } = options as LiveOptions
  if (index !== undefined && typeof index !== 'string') {
    throw new TtlError('INVALID_OPTION', `db.live options.index must be an index name; got ${kindOf(index)}`)
  }
  if (count !== undefined && !(Number.isInteger(count) && count >= 0)) {
    throw new TtlError('INVALID_OPTION', `db.live options.count must be a whole number ≥ 0; got ${typeof count === 'number' ? count : kindOf(count)}`)
  }
  return { index, query, count }
}
