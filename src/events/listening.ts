/**
 * Who listens to a database's expiry events (SPEC §8), as the purge asks before it reads item
 * values: the handles of this realm (`listeners.ts`), and every tab and worker of the origin
 * through the Web Locks their listeners hold. The purge's side alone, apart from the listeners
 * themselves, so that a page loads it with the purge.
 */
import { joinBus, type Member } from '../platform/bus.js'
import { lockNames } from '../platform/lock.js'
import { local, lockPrefix } from './listeners.js'

/** The stores listened to: a set of names, or `'*'` for all. */
export type Listening = ReadonlySet<string> | '*'

/** Whether `listening` (as {@link listeningStores} gives it) takes the events of `store`. */
export function listensTo(listening: Listening | undefined, store: string): boolean {
  return listening === '*' || (listening?.has(store) ?? false)
}

/**
 * Which stores of database `dbName` some connection listens to: in this realm, and (through Web
 * Locks) in every tab and worker of the origin. `undefined` when nobody listens.
 */
export async function listeningStores(dbName: string): Promise<Listening | undefined> {
  const stores = new Set<string>()
  if (unite(stores, localListening(dbName)) === '*') return '*'
  // A listener registered a moment ago may still wait for its lock to be granted: lockNames counts it.
  for (const name of await lockNames(lockPrefix(dbName))) {
    const filter = name.slice(name.indexOf(':') + 1)
    if (unite(stores, filter === '*' ? '*' : (JSON.parse(filter) as string[])) === '*') return '*'
  }
  return stores.size > 0 ? stores : undefined
}

/** What the handles of this realm listen to. */
function localListening(dbName: string): Listening | undefined {
  const stores = new Set<string>()
  for (const handle of local.get(dbName) ?? []) if (unite(stores, handle.listening) === '*') return '*'
  return stores.size > 0 ? stores : undefined
}

/** Adds `listening` to `stores`; `'*'` once it takes every store. */
function unite(stores: Set<string>, listening: Listening | readonly string[] | undefined): Set<string> | '*' {
  if (listening === '*') return '*'
  listening?.forEach((store) => stores.add(store))
  return stores
}

/**
 * Who listens to database `dbName`, for the length of one purge: asked of Web Locks once (the
 * first time a store nobody in this realm listens to comes up), and then kept up to date by the
 * handles that start listening meanwhile, which say so on the bus, so that a listener added
 * while the purge runs hears the batches after it without a query of the locks before each batch.
 * A listener that goes away meanwhile still counts until the purge ends (values read for nothing).
 * {@link ListeningWatch.close} when the purge is done.
 */
export class ListeningWatch {
  private readonly heard = new Set<string>()
  private all = false
  private asked: Promise<void> | undefined
  private readonly member: Member

  constructor(private readonly dbName: string) {
    this.member = joinBus(dbName).on('listening', (stores) => this.add(stores))
  }

  /** Whether some connection listens to `store`. */
  async wants(store: string): Promise<boolean> {
    if (this.has(store) || listensTo(localListening(this.dbName), store)) return true
    this.asked ??= listeningStores(this.dbName).then((listening) => this.add(listening))
    await this.asked
    return this.has(store)
  }

  close(): void {
    this.member.leave()
  }

  private has(store: string): boolean {
    return this.all || this.heard.has(store)
  }

  private add(listening: Listening | readonly string[] | undefined): void {
    if (unite(this.heard, listening) === '*') this.all = true
  }
}
