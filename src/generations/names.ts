/**
 * How a database's generations are named (`values.ts`): apart, so that a deletion (`delete-db.ts`)
 * finds them without carrying the reading of their values, which the page entries load on first use.
 */

/** What separates a database's name from its generations' names. */
export const GEN = '~gen~'

/** What the names of a database's generations start with. */
export function generationPrefix(dbName: string): string {
  return `${dbName}${GEN}`
}
