// The public types of `idb-ttl/tanstack`, self-contained: dist/tanstack.d.ts is bundled from them.
/**
 * The storage TanStack Query's persisters take (`AsyncStorage` of
 * `@tanstack/query-persist-client-core`), declared here so that this entry needs nothing of it.
 */
export interface TtlAsyncStorage<TStorageValue = string> {
  /** The value stored at `key`, or `null` when there is none or it expired. */
  getItem(key: string): Promise<TStorageValue | null>
  /** Stores `value` at `key`; its countdown starts now. */
  setItem(key: string, value: TStorageValue): Promise<void>
  removeItem(key: string): Promise<void>
  /**
   * Every live entry, read at one instant (one `getAll`). On a store declared `touchOnRead`, that
   * read restarts the countdown of each, as any read does.
   */
  entries(): Promise<Array<[key: string, value: TStorageValue]>>
}

/** Options of {@link ttlStorage}. */
export interface TtlStorageOptions {
  /**
   * Seconds each entry lives after it was written, `-1` for never (an item's `ttl`, SPEC §1);
   * absent: the store's `defaultTtl`, which is the one to declare as the persister's `maxAge` in
   * seconds. Anything else (0, fractions) is TtlError `INVALID_TTL` at `ttlStorage(…)`.
   */
  ttl?: number
}
