/**
 * The words of the refusals only `idb-ttl`'s handle makes (issue #44): `onLost` at open,
 * `db.transaction`'s arguments and stores apart. `idb-ttl`'s
 * entries load this module, which brings `texts.ts`, at the first refusal (`assembly/open-page.ts`;
 * `open-inline.ts` imports it): `idb-ttl/core`, which never makes these refusals, carries none of it.
 */
import { kindOf } from './errors.js'
import { TEXTS as SHARED } from './texts.js'

/** Each text, by the key a refusal names it with (as `texts.ts`'s). */
const FULL_TEXTS = {
  onLost: (onLost: unknown) => `openTtlDB: onLost must be a function given the lost database's report; got ${kindOf(onLost)}`,
  apart: (store: string, why: string) =>
    `store "${store}" keeps its values in databases of their own (${why}), which one transaction cannot span; use the handle's own calls for it`,
  transactionStores: (stores: unknown) => `db.transaction takes a store name or a non-empty array of them; got ${kindOf(stores)}`,
  transactionMode: (mode: unknown) => `db.transaction's mode must be 'readonly' or 'readwrite'; got ${String(mode)}`,
  transactionCallback: (callback: unknown) => `db.transaction needs a callback (tx) => …; got ${kindOf(callback)}`,
}

/** `texts.ts`'s words and these: every text a refusal of `idb-ttl` names. */
export const TEXTS = { ...SHARED, ...FULL_TEXTS }
