/**
 * The database of one cache's entries, `idb-ttl-workbox:<cache name>`, opened over raw IndexedDB.
 * Its layout is the one idb-ttl 0.1's full handle gave it (the plugin was built on that handle),
 * so a database an earlier version of the plugin wrote is read as it is, with nothing to
 * upgrade: store `entries` (key path `url`, index `$ttl` over each entry's expiry mark,
 * `rules/policy.ts`) and the metadata store, whose record `entries` holds the settings (the
 * default lifetime and what earlier defaults left dead for good, SPEC §3). Any other layout is
 * refused, never guessed at.
 */
import { TtlError } from '../rules/errors.js'
import type { StoreState } from '../rules/policy.js'
import { changeDefault, initialState } from '../rules/default-change.js'
import { done, req } from '../platform/request.js'
import { EXPIRY_INDEX, MARK_FIELD, META_STORE } from '../layout/expiry-index.js'
import { GEN_INDEX } from '../layout/generation-index.js'

/** The store of the entries, one per cached request. */
export const STORE = 'entries'

/** An entry as stored (fields of idb-ttl 0.1's layout that the plugin does not use are kept). */
export interface Entry {
  url: string
  /** When it was cached, epoch ms. */
  at: number
  /** When it was last served, epoch ms, where the cache keeps an order of use. */
  used?: number
  /** Its own lifetime in seconds; absent: the default. */
  ttl?: number
  /** When it was cached or, sliding, last served: epoch seconds. */
  _ts: number
  /** Its expiry mark; absent: it never expires. */
  [MARK_FIELD]?: number
}

/** The database that keeps the entries of cache `cacheName`. */
export const databaseName = (cacheName: string) => `idb-ttl-workbox:${cacheName}`

/**
 * Opens the entries of `cacheName` (creating the database at version 1, as idb-ttl 0.1 did) and
 * brings its settings to the declared default: a changed default applies to every entry that
 * inherits it, and what the old one left dead stays dead.
 * @throws TtlError `SCHEMA_MISMATCH` for a database of that name with another layout
 */
export async function openEntries(cacheName: string, declared: number, nowMs: number): Promise<{ db: IDBDatabase; state: StoreState }> {
  const name = databaseName(cacheName)
  const request = indexedDB.open(name)
  request.onupgradeneeded = () => {
    const db = request.result
    db.createObjectStore(META_STORE)
    db.createObjectStore(STORE, { keyPath: 'url' }).createIndex(EXPIRY_INDEX, MARK_FIELD)
  }
  const db = await req(request)
  try {
    const tx = db.transaction([STORE, META_STORE], 'readwrite')
    const store = tx.objectStore(STORE)
    // With values kept elsewhere, in generations (a page that opened it declared evictOnQuota), refused.
    if (store.keyPath !== 'url' || !store.indexNames.contains(EXPIRY_INDEX) || store.indexNames.contains(GEN_INDEX)) throw new Error()
    const meta = tx.objectStore(META_STORE)
    const stored = await req<StoreState | undefined>(meta.get(STORE))
    let state = stored ?? initialState(declared)
    if (state.declared !== declared) state = { ...changeDefault(state, declared, nowMs), declared }
    if (state !== stored) meta.put(state, STORE)
    await done(tx)
    return { db, state }
  } catch (error) {
    db.close()
    // NotFoundError: a store missing; a store of another shape: the error thrown above.
    if (error instanceof DOMException && error.name !== 'NotFoundError') throw error
    throw new TtlError('SCHEMA_MISMATCH', `TtlExpirationPlugin: database "${name}" was not written by idb-ttl/workbox (its store "${STORE}" keyed by url with index "${EXPIRY_INDEX}", and "${META_STORE}", are missing or differ): delete it, or give the cache another name`)
  }
}
