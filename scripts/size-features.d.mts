export interface Feature {
  id: string
  name: string
  /** `false`: the cut is of the core app (the feature's code is already there). */
  full?: false
  /** The id of a feature whose cut shares code with this one. */
  shares?: string
  /** Module (from the repository's root) → the exports stubbed. */
  exports: Record<string, string[]>
  /** Module → class → the members dropped. */
  members: Record<string, Record<string, string[]>>
}
export declare const FEATURES: Feature[]
export interface FeatureSize {
  id: string
  name: string
  full: boolean
  /** Bytes min+gzip the cut saves. */
  bytes: number
  /** With what it shares with another feature (`shares`). */
  shared?: { with: string; bytes: number }
}
/** The apps of `{ openTtlDB }` of `idb-ttl` and `idb-ttl/core`, what each feature's cut saves, and all the full-entry cuts together. */
export declare function featureSizes(): Promise<{ full: number; core: number; features: FeatureSize[]; allCuts: number }>
/** `code` with `names` exported as empty stubs and `members` (class → names) dropped; throws naming what it did not find. */
export declare function cut(code: string, fileName: string, names?: string[], members?: Record<string, string[]>): string
