/**
 * The words of `idb-ttl/core`'s refusals of what only `idb-ttl` has (issue #44): at open, a store
 * option or purge mode it leaves out, `onLost`, `bucket.expiresAfterItems`; at a call, a store
 * another handle keeps in generations or mirrors. `idb-ttl/core`'s entry loads this module, which
 * brings `texts.ts`, at the first refusal (`assembly/open-core.ts`): `idb-ttl`, which never makes
 * these refusals, carries none of it.
 */
import { TEXTS as SHARED } from './texts.js'

/** The one-line change that gives an app of `idb-ttl/core` what only `idb-ttl` has. */
const USE_FULL_ENTRY = "import { openTtlDB } from 'idb-ttl' instead of 'idb-ttl/core'"

/** Each text, by the key a refusal names it with (as `texts.ts`'s). */
const FULL_ONLY_TEXTS = {
  notInCore: (option: string) => `${option} is not in idb-ttl/core; ${USE_FULL_ENTRY}`,
  storeNotInCore: (store: string, option: string) => `store "${store}": ${option} is not in idb-ttl/core; ${USE_FULL_ENTRY}`,
  inlineNotInCore: () => `purge mode 'inline' is not in idb-ttl/core, which purges in its worker; ${USE_FULL_ENTRY}`,
  generationsInCore: (store: string) =>
    `store "${store}" keeps its values in generations (evictOnQuota, declared by another handle), not in idb-ttl/core; ${USE_FULL_ENTRY}`,
  mirroredInCore: (store: string) =>
    `store "${store}" is mirrored (mirror: true, declared by another handle), which idb-ttl/core cannot queue writes for; ${USE_FULL_ENTRY}`,
}

/** `texts.ts`'s words and these: every text an `idb-ttl/core` refusal names. */
export const TEXTS = { ...SHARED, ...FULL_ONLY_TEXTS }
