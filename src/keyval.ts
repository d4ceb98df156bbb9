// `idb-ttl/keyval`: idb-keyval's calls with their signatures, plus time to live (SPEC §14,
// docs/keyval.md). Switching from idb-keyval is a changed import.
export { clear, del, delMany, entries, get, getMany, keys, set, setMany, update, values } from './keyval/calls.js'
export { promisifyRequest } from './keyval/request.js'
export { createStore } from './keyval/store.js'
export type { SetOptions, StoreOptions, UseStore } from './keyval/types.js'
export { TtlError, type TtlErrorCode } from './rules/errors.js'
