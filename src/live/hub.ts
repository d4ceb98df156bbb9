/**
 * One handle's live queries: it makes them (`db.live`) and stops its own when the handle closes.
 * What tells every live query of the database that stores changed is the handle's
 * `Presence` (`notices.ts`, held by `handle/core-parts.ts`), which handles without live queries
 * (`idb-ttl/core`'s) need as well.
 */
import { kindOf, TtlError } from '../rules/errors.js'
import { checkKnownOptions } from '../rules/option-hint.js'
import type { Reading } from '../reads/reads.js'
import { LiveQuery, type LiveSource } from './query.js'
import { readLive, type LiveOptions } from './result.js'

export class LiveHub {
  closed = false
  private readonly queries = new Set<LiveQuery<unknown>>()

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
    const { index, query, count } = checkOptions(store, options)
    const { dbName, clock, reading, follow } = this
    const read = async () => readLive(await connect(), store, clock, { index, query, count }, reading)
    return new LiveQuery<T>({ dbName, store, clock, read, owner: this, follow })
  }

  close(): void {
    this.closed = true
    for (const query of [...this.queries]) query.close()
  }

  /** A query that started: closed with the handle. */
  add(query: LiveQuery<unknown>): void {
    this.queries.add(query)
  }

  /** A query that stopped. */
  delete(query: LiveQuery<unknown>): void {
    this.queries.delete(query)
  }
}

/** `db.live` options as TypeScript would have them, and no others: a misspelt `index` would read the whole store. */
function checkOptions(store: string, options: unknown): LiveOptions {
  if (options === null || typeof options !== 'object') {
    throw new TtlError('INVALID_OPTION', `db.live options must be an object ({ index, query, count }); got ${kindOf(options)}`)
  }
  checkKnownOptions(`db.live("${store}") options`, options, 'live')
  const { index, query, count } = options as LiveOptions
  if (index !== undefined && typeof index !== 'string') {
    throw new TtlError('INVALID_OPTION', `db.live options.index must be an index name; got ${kindOf(index)}`)
  }
  if (count !== undefined && !(Number.isInteger(count) && count >= 0)) {
    throw new TtlError('INVALID_OPTION', `db.live options.count must be a whole number ≥ 0; got ${typeof count === 'number' ? count : kindOf(count)}`)
  }
  return { index, query, count }
}
