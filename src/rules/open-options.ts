/**
 * The options `openTtlDB` takes, which every open checks for names it does not know, and that
 * check: apart from the other objects' lists (`known-options.ts`), which only an open given more
 * than a store's key and default needs, so that those are out of the first load (issue #44).
 */

/** The options of `openTtlDB` itself. */
export const OPEN_OPTIONS = ['version', 'stores', 'clock', 'purge', 'ttlValues', 'durability', 'upgrade', 'bucket', 'onLost'] as const

/** The first option of `options` not among `known`, if any. */
export function unknownIn(options: object, known: readonly string[]): string | undefined {
  return Object.keys(options).find((name) => !known.includes(name))
}
