/**
 * One reading of a live query: the items `getAll` (or `getAllFromIndex`) would return, what makes
 * two readings the same, and when the first of the items expires, all from one read-only
 * transaction, so the expiry is judged by the settings committed with the items.
 */
import { ORDER_FIELD, WRITER_FIELD } from '../layout/stamp.js'
import { MARK_FIELD } from '../layout/expiry-index.js'
import { keyId, req, walk } from '../platform/request.js'
import { markExpiryMs } from '../rules/policy.js'
import { userIndex } from '../reads/index-reads.js'
import type { ReadScope, Reading } from '../reads/reads.js'
import type { slides } from '../reads/owed-touches.js'
import type { asOwed } from '../reads/touched.js'

/** Which items a live query follows: those `getAll` or `getAllFromIndex` would return with these arguments. */
export interface LiveOptions<Q = IDBValidKey | IDBKeyRange> {
  /** Read by this index of the store (as `getAllFromIndex`); default: by primary key. */
  index?: string
  /** A key (of the index, with `index`) or a range; default: all. */
  query?: Q | null
  /** At most this many items. */
  count?: number
}

/** The realm's scope of reads and touches owed, as the handle hands them in (`hub.ts` `liveRealm`). */
export interface LiveReads {
  ReadScope: typeof ReadScope
  slides: typeof slides
  asOwed: typeof asOwed
}

/** What one reading found. */
export interface LiveResult {
  items: unknown[]
  /** Equal for two readings with the same keys, `_ts` and writes: an unchanged result is not emitted again. */
  signature: string
  /** When the first item of `items` expires (epoch ms); `Infinity` when none will. */
  nextExpiryMs: number
}

type Row = [primaryKey: IDBValidKey, stored: unknown]

/**
 * Reads the live items. On a `touchOnRead` store the touches the page owes count, as the page's
 * reads count them: each value is taken as they will write it (`reads/touched.ts`), so an item
 * read before its old expiry stays, and shows its new `_ts`. A live query watches, it does not
 * use: it touches nothing, and does not keep items alive by being on screen. Values kept in
 * generations are read with `reading.generations`; the realm's scope of reads and touches owed
 * with `realm` (handed in: this module is loaded later, `subscribers.ts`).
 * @throws TtlError `UNKNOWN_INDEX`
 */
export async function readLive(db: IDBDatabase, store: string, clock: () => number, options: LiveOptions, reading: Reading, realm: LiveReads): Promise<LiveResult> {
  const { generations } = reading
  const { ReadScope, slides, asOwed } = realm
  const scope = ReadScope.open(db, store, clock, { generations })
  const owed = slides(db.name, store) ? (value: unknown) => asOwed(db.name, store, value) : (value: unknown) => value
  const source = options.index === undefined ? scope.store : userIndex(scope, options.index)
  const query = options.query ?? undefined
  const { count } = options
  const keys = req(source.getAllKeys(query, count))
  const values = (await req(source.getAll(query, count))).map(owed)
  const isLive = scope.live(await scope.cut())
  const primaryKeys = await keys
  let rows: Row[] = values.flatMap((value, i) => (isLive(value) ? [[primaryKeys[i], value] as Row] : []))
  // As getAll does: when dead items took places under `count`, walk on past them.
  if (count && values.length === count && rows.length < count) {
    rows = await walk<IDBCursorWithValue, Row>(source.openCursor(query), count, (c) => {
      const value = owed(c.value)
      return isLive(value) ? [c.primaryKey, value] : undefined
    })
  }
  const stored = rows.map(([, value]) => value)
  const signature = JSON.stringify(rows.map(([key, value]) => [keyId(key), ...fieldsOf(value)]))
  const nextExpiryMs = await firstDeathOf(scope, stored)
  return { items: await scope.out(stored), signature, nextExpiryMs }
}

/** When the first of these live stored values dies under the settings in force (epoch ms); `Infinity`: none will. */
async function firstDeathOf(scope: ReadScope, values: readonly unknown[]): Promise<number> {
  const state = await scope.state
  return values.reduce<number>((first, value) => Math.min(first, markExpiryMs(state, scope.markFor(value))), Infinity)
}

/**
 * `_ts` alone is whole seconds: two writes of an item in one second share it. The write order
 * (`ORDER_FIELD`, epoch ms) and its writer (`WRITER_FIELD`: two tabs may write in one
 * millisecond) tell them apart, and the mark a change of `ttl` alone.
 */
function fieldsOf(value: unknown): unknown[] {
  const item = (value ?? {}) as Record<string, unknown>
  return [item._ts, item[ORDER_FIELD], item[WRITER_FIELD], item[MARK_FIELD]]
}
