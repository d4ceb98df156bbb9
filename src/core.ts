// `idb-ttl/core`: the basic calls, with the same layout on disk, purge worker and rules as
// `idb-ttl` (a core handle and a full one interoperate on one database), in a fraction of its bytes.
export * from './assembly/common.js'
export { deleteTtlDB, openTtlDB } from './assembly/open-core.js'
