/**
 * A declaration that differs from the settings last applied (a changed `defaultTtl`, capacity,
 * `mirror` or `keepExpired`), applied at open: written under the settings lock, announced to the
 * realm's other handles and tabs. It loads with the schema work (`upgrade.ts`, whose new stores
 * start from {@link withKept} settings), when an open finds settings not as declared
 * (`schema.ts` `asDeclared`).
 */
import { capacityOf, type Capacity } from '../rules/capacity.js'
import type { StoreState } from '../rules/policy.js'
import { changeDefault, initialState } from '../rules/default-change.js'
import { done, req } from '../platform/request.js'
import { META_STORE } from './expiry-index.js'
import { announce, learn } from './held-settings.js'
import { changingSettings } from './settings-change.js'
import { asDeclared, type StoreConfigs, type Undeclarable } from './schema.js'
import type { StoreConfig } from '../rules/types.js'

/**
 * `state` with `capacity`, `mirror` and `keepExpired` as given (absent when none, or `false`). A
 * store that gains a grace at `nowMs` counts what is dead then as expired then (`rules/grace.ts`).
 */
export function withKept(state: StoreState, capacity: Capacity | undefined, mirror: boolean, keepExpired: number | undefined, nowMs?: number): StoreState {
  const next = { ...state }
  if (capacity) next.capacity = capacity
  else delete next.capacity
  if (mirror) next.mirror = true
  else delete next.mirror
  if (keepExpired === undefined) {
    delete next.keepExpired
    delete next.changedAt
  } else {
    if (next.keepExpired === undefined && nowMs !== undefined) next.changedAt = nowMs
    next.keepExpired = keepExpired
  }
  return next
}

/**
 * The settings a store should have now, when its declaration differs from the one last applied
 * (`asDeclared`); what the entry cannot declare (`undeclarable`) stays as `stored` has it.
 */
function redeclared(config: StoreConfig, stored: StoreState | undefined, nowMs: number, undeclarable: Undeclarable): StoreState | undefined {
  if (asDeclared(config, stored, undeclarable)) return undefined
  const declared = config.defaultTtl ?? null
  const state = stored ?? initialState(declared)
  const capacity = undeclarable.includes('capacity') ? state.capacity : capacityOf(config)
  const mirror = undeclarable.includes('mirror') ? state.mirror === true : config.mirror === true
  const kept = withKept(state, capacity, mirror, config.keepExpired, stored && nowMs)
  return stored?.declared === declared ? kept : { ...changeDefault(kept, declared, nowMs), declared }
}

/**
 * Applies every declared `defaultTtl`, capacity, `mirror` and `keepExpired` that differs from the
 * one last declared (an open found one that does: `asDeclared`), but those the entry cannot
 * declare (`undeclarable`), as the write's transaction reads them; resolves to the stores whose settings it changed (not a store declared for
 * the first time): their live queries and the purger are to be told, as after `setDefaultTtl`.
 */
export async function applyDeclaredDefaults(
  db: IDBDatabase,
  connect: () => Promise<IDBDatabase>,
  stores: StoreConfigs,
  nowMs: number,
  durability: IDBTransactionDurability | undefined,
  undeclarable: Undeclarable,
): Promise<string[]> {
  const names = Object.keys(stores)
  const changed = new Map<string, StoreState>()
  // A store's first settings change nothing anyone reads: no live query or purge knows the store yet.
  const news: string[] = []
  await changingSettings(db.name, async () => {
    // Asked for again: an upgrade elsewhere may have closed the connection since the read.
    const tx = (await connect()).transaction(META_STORE, 'readwrite', { durability })
    const meta = tx.objectStore(META_STORE)
    const committed = done(tx)
    const states = await Promise.all(names.map((name) => req<StoreState | undefined>(meta.get(name))))
    names.forEach((name, i) => {
      learn(db.name, name, states[i])
      const next = redeclared(stores[name], states[i], nowMs, undeclarable)
      if (next) {
        changed.set(name, next)
        meta.put(next, name)
        if (states[i] !== undefined) news.push(name)
      }
    })
    await committed
  })
  for (const [name, state] of changed) announce(db.name, name, state)
  return news
}
