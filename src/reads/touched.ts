/**
 * What a full handle's static part holds of sliding expiry (SPEC §7), for the touches
 * (`touch.ts`) that its open loads only where a store declares `touchOnRead` (issue #44): a stored
 * value as the touches owed will write it, and the realm's registries the touches use
 * ({@link touchRealm}). Those are handed to the touches, not imported by them: whichever copy of
 * `touch.ts` loads (a page may hold two copies of the library), it registers, judges and stamps in
 * its handle's realm.
 */
import { joinBus } from '../platform/bus.js'
import { MARK_FIELD } from '../layout/expiry-index.js'
import { markOf } from '../rules/policy.js'
import { ORDER_FIELD, writeOrder, WRITER, WRITER_FIELD } from '../layout/stamp.js'
import { ttlOf } from '../rules/ttl.js'
import { heldSettings, readSettings, settingsIn } from '../layout/held-settings.js'
import { owedMark, owedTouch, registerOwing, type Touch } from './owed-touches.js'

type Item = Record<string, unknown>

/** A stored value with its touch applied: the new `_ts`, write order (of this realm) and expiry mark. */
export function touched(value: Item, touch: Touch): Item {
  const mark = markOf(ttlOf(value.ttl, 'lenient')!, touch.ts)
  const out = { ...value, _ts: touch.ts, [ORDER_FIELD]: touch.at, [WRITER_FIELD]: WRITER }
  return mark === undefined ? out : { ...out, [MARK_FIELD]: mark }
}

/**
 * A stored value of `store` as the touches the realm owes will write it (a copy), or the value
 * itself when none is owed: what a live query, which touches nothing, shows and compares.
 */
export function asOwed(dbName: string, store: string, value: unknown): unknown {
  const touch = owedTouch(dbName, store, value)
  return touch ? touched(value as Item, touch) : value
}

/** The realm's registries and stamps, as the touches a handle owes (`touch.ts`) use them. */
export const touchRealm = { registerOwing, owedMark, owedTouch, heldSettings, readSettings, settingsIn, writeOrder, joinBus, touched }

export type TouchRealm = typeof touchRealm
