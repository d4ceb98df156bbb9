/**
 * One handle's live queries: it makes them (`db.live`), tells every live query of the database
 * that stores changed once a change of this handle committed (`Routes.changed`) or its reads
 * touched items, and stops its own when the handle closes.
 */
import { kindOf, TtlError } from '../rules/errors.js'
import { checkKnownOptions } from '../rules/known-options.js'
import type { Touches } from '../reads/touch.js'
import { Presence, tellRealm } from './notices.js'
import { LiveQuery } from './query.js'
import { readLive, type LiveOptions } from './result.js'

export class LiveHub {
  closed = false
  private readonly queries = new Set<LiveQuery<unknown>>()
  private readonly presence: Presence

  constructor(
    private readonly dbName: string,
    private readonly clock: () => number,
    private readonly touches: Touches,
  ) {
    this.presence = new Presence(dbName)
  }

  /**
   * A live query of `store` on the connection `connect` gives (which checks the store).
   * @throws TtlError `INVALID_OPTION` for malformed options or an unknown option name
   */
  query<T>(store: string, connect: () => Promise<IDBDatabase>, options: LiveOptions = {}): LiveQuery<T> {
    const { index, query, count } = checkOptions(store, options)
    const { dbName, clock, touches } = this
    const read = async () => readLive(await connect(), store, clock, { index, query, count }, touches)
    return new LiveQuery<T>({ dbName, store, clock, read, owner: this })
  }

  /** Committed changes of `stores`: every live query of the database hears of them, in every realm. */
  changed(stores: readonly string[]): void {
    if (stores.length > 0) this.presence.changed(stores)
  }

  /**
   * Reads of this realm touched items of `stores` (owed, not yet written): the live queries of
   * this realm, which count owed touches, read again. Other realms learn of the touches once
   * they are written ({@link changed}).
   */
  touched(stores: readonly string[]): void {
    tellRealm(this.dbName, stores)
  }

  close(): void {
    this.closed = true
    for (const query of [...this.queries]) query.close()
    this.presence.close()
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
