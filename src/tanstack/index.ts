export { ttlStorage } from './storage.js'
export type { TtlAsyncStorage, TtlStorageOptions } from './types.js'
