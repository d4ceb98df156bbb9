/**
 * What reads by a user index and reads of keys need beyond `reads.ts`: the check of an index's
 * name, the primary keys of the dead, and the count of an index's live entries. Apart from
 * `reads.ts`, whose {@link ReadScope} every first load carries (issue #44): `idb-ttl`'s handle
 * imports it for `getAllFromIndex` and `countFromIndex`, which load nothing later; `idb-ttl/core`
 * loads it with the less common calls (`more-reads.ts`), and so do transactions and live queries.
 */
import { TS_INDEX } from '../rules/capacity.js'
import { TtlError } from '../rules/errors.js'
import { EXPIRY_INDEX } from '../layout/expiry-index.js'
import { GEN_INDEX } from '../layout/generation-index.js'
import type { Cutoffs } from '../rules/policy.js'
import { keyId, req } from '../platform/request.js'
import { deadKeyList, type Query, type ReadScope } from './reads.js'

/**
 * The user index `name` of the scope's store; the library's own indexes (expiry, `_ts`) are not.
 * @throws TtlError `UNKNOWN_INDEX`
 */
export function userIndex(scope: ReadScope, name: string): IDBIndex {
  const ownNames = [EXPIRY_INDEX, TS_INDEX, GEN_INDEX]
  const names = Array.from(scope.store.indexNames).filter((index) => !ownNames.includes(index))
  if (!names.includes(name)) {
    const own = ownNames.includes(name) ? ` ("${name}" is the library's own)` : ''
    const known = names.length ? `its indexes are ${names.map((n) => `"${n}"`).join(', ')}` : 'it has none'
    throw new TtlError('UNKNOWN_INDEX', `store "${scope.store.name}" has no index "${name}"${own}: ${known}`)
  }
  return scope.store.index(name)
}

/** Primary keys of the dead items, by the expiry index (work in proportion to the dead), as {@link keyId}s. */
export async function deadKeys(scope: ReadScope, cut: Cutoffs): Promise<Set<string>> {
  return new Set((await deadKeyList(scope, cut)).map(keyId))
}

/** Entries of `index` in `query` whose items are live. */
export async function countIndexed(scope: ReadScope, index: IDBIndex, query: Query): Promise<number> {
  const total = await req(index.count(query ?? undefined))
  const cut = await scope.cut()
  const dead = await deadKeys(scope, cut)
  if (dead.size === 0) return total
  const keys = await req(index.getAllKeys(query))
  return keys.filter((key) => !dead.has(keyId(key))).length
}
