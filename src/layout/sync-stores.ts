/**
 * The library's own stores for mirrors of a server (`idb-ttl/cosmos`): created in every upgrade
 * beside the journal, so that a database opened at a version from before they existed lacks
 * them until its version is raised (`create-sync-stores.ts`). Only the mirror reads or writes them.
 */

/**
 * Local writes not yet pushed, one record per store and key (the latest write wins the record),
 * under an increasing number that orders the pushes: `{ store, key, op, at }`.
 */
export const OUTBOX_STORE = '__idb_ttl_outbox'
/** Index of {@link OUTBOX_STORE} over `[store, key]`: the record a new write replaces. */
export const OUTBOX_BY_KEY = 'byKey'
/**
 * What a mirror knows of the server, keyed by arrays: `[store, 'checkpoint']` the pull's place,
 * `[store, 'etag', key]` the `_etag` of the server's copy a local item was last in step with.
 */
export const SYNC_STORE = '__idb_ttl_sync'
