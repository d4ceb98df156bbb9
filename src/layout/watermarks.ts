/**
 * What this realm (page or worker) knows of each store's watermarks — what changes of setting
 * left dead for good (SPEC §3) — so that writes stamp above them without reading the settings
 * (SPEC §6: a write is never born dead): writes where the realm holds no settings (no Web Locks:
 * `held-settings.ts`), writes in a transaction (which read or hold them just before), and values
 * stashed in generations before their rows' transaction reads them. Watermarks only grow, so the
 * largest seen is the freshest: every connection of the realm shares what any of them read, and
 * a change made in another tab arrives on the database's bus (topic `watermarks`). Kept only
 * while a handle of the database is open.
 */
import { joinBus, type Member } from '../platform/bus.js'
import { higher, type StoreState } from '../rules/policy.js'

/** The part of a store's settings that a write must stay above. */
export type Watermarks = Pick<StoreState, 'deadTs' | 'deadExpiry'>

declare module '../platform/bus.js' {
  interface BusTopics {
    watermarks: Watermarks & { store: string }
  }
}

interface Known {
  handles: number
  stores: Map<string, Watermarks>
  member: Member
}

const NONE: Watermarks = { deadTs: null, deadExpiry: null }
const databases = new Map<string, Known>()

/** The watermarks known for `store` of database `name`. */
export function knownWatermarks(name: string, store: string): Watermarks {
  return databases.get(name)?.stores.get(store) ?? NONE
}

/** Folds settings read from (or written to) the database into what the realm knows. */
export function learn(name: string, store: string, state: Watermarks | undefined): void {
  const known = databases.get(name)
  if (!known || !state) return
  const before = known.stores.get(store) ?? NONE
  known.stores.set(store, { deadTs: higher(before.deadTs, state.deadTs), deadExpiry: higher(before.deadExpiry, state.deadExpiry) })
}

/** Tells other tabs that a change of setting raised the watermarks of `store`. */
export function announce(name: string, store: string, state: Watermarks): void {
  learn(name, store, state)
  databases.get(name)?.member.post('watermarks', { store, deadTs: state.deadTs, deadExpiry: state.deadExpiry })
}

/** A handle of database `name` opened: share watermarks with it until `release` is called. */
export function follow(name: string): () => void {
  let known = databases.get(name)
  if (!known) {
    const member = joinBus(name).on('watermarks', (message) => learn(name, message.store, message))
    known = { handles: 0, stores: new Map(), member }
    databases.set(name, known)
  }
  known.handles++
  let released = false
  return () => {
    if (released) return
    released = true
    if (--known.handles > 0) return
    known.member.leave()
    databases.delete(name)
  }
}
