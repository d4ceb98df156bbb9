/**
 * How live queries hear that stores changed, in this realm and every other tab and worker of the
 * origin. In this realm a change reaches the live queries directly (through the registry below,
 * which `hearing.ts`, loaded with what runs a subscribed query, fills). Across realms it travels on
 * the database's bus (topic `changed`), but only while some other realm has live queries: a
 * BroadcastChannel message per write costs about half a write again (docs/benchmarks.md), which
 * apps without live queries must not pay.
 *
 * So a realm with live queries on a database holds a Web Lock named after it (`lockPrefix`) and
 * says so on the bus (topic `live`) when its first one starts and its last one stops; each handle
 * keeps what it learnt ({@link Presence}) and posts changes only while another realm listens.
 * Until it knows, and wherever there are no Web Locks to ask, it posts.
 */
import { joinBus, type Member } from '../platform/bus.js'
import { lockNames, uniqueId, webLocks, type HeldLock } from '../platform/lock.js'
import { lockSafe } from '../platform/lock-name.js'

/** Stores changed: sent by realm `from`. */
export interface ChangedMessage {
  from: string
  stores: readonly string[]
}

/** Realm `from` has live queries on the database (`here`), or no longer has any. */
export interface LiveMessage {
  from: string
  here: boolean
}

declare module '../platform/bus.js' {
  interface BusTopics {
    changed: ChangedMessage
    live: LiveMessage
  }
}

/** A realm that stopped listening lets its lock go as it says so: ask the locks again this much later. */
const RECHECK_MS = 50

/** This realm (this copy of the library): it skips its own messages, which reach its members too. */
export const realm = uniqueId()
/** The Web Locks a realm with live queries on database `dbName` holds, one per realm. */
export const lockPrefix = (dbName: string) => `idb-ttl:live:${lockSafe(dbName)}:`

export type Hearer = (stores: readonly string[]) => void

/** What this realm's live queries of one database hold while they listen (`hearing.ts`). */
export interface Listening {
  hearers: Set<Hearer>
  member: Member
  lock: HeldLock | undefined
  lateNews: ReturnType<typeof setTimeout> | undefined
}

/** The realm's registry, id, bus and telling of changes, as the handle hands them to `hearing.ts` (`hub.ts` `liveRealm`). */
export interface Hearing {
  realm: string
  listening: Map<string, Listening>
  joinBus: typeof joinBus
  tellRealm: typeof tellRealm
}

/**
 * Per database, the live queries of this realm; present only while there is one. What loads later
 * (`hearing.ts`) fills it, handed it by the query (`hub.ts` `liveRealm`).
 */
export const listening = new Map<string, Listening>()

/** Tells this realm's live queries of database `dbName` that `stores` changed (`null`: any store may have). */
export function tellRealm(dbName: string, stores: readonly string[] | null): void {
  for (const hear of listening.get(dbName)?.hearers ?? []) hear(stores ?? ['*'])
}

/** What a handle tells of its changes, and stops when it closes: a {@link Presence}. */
export type Notices = Pick<Presence, 'changed' | 'close'>

/**
 * What one handle knows of live queries in other realms, to post its changes only where they are
 * heard. A realm that ends without a word (a closed tab) leaves this handle posting for nothing,
 * which costs messages, never a change missed.
 */
export class Presence {
  private readonly member: Member
  private othersListen = true
  /** Counts what was heard: an answer of the locks asked before the latest news is stale. */
  private news = 0
  private recheck: ReturnType<typeof setTimeout> | undefined

  constructor(private readonly dbName: string) {
    this.member = joinBus(dbName).on('live', (message) => this.heard(message))
    this.ask()
  }

  /** Tells every live query of the database, in this realm and the others, that `stores` changed. */
  changed(stores: readonly string[]): void {
    tellRealm(this.dbName, stores)
    if (this.othersListen) this.member.post('changed', { from: realm, stores: [...stores] })
  }

  private heard({ from, here }: LiveMessage): void {
    if (from === realm) return
    this.news++
    if (here) {
      this.othersListen = true
      return
    }
    clearTimeout(this.recheck)
    this.recheck = setTimeout(() => this.ask(), RECHECK_MS)
  }

  private ask(): void {
    this.recheck = undefined
    if (!webLocks()) return
    const asked = this.news
    void lockNames(lockPrefix(this.dbName)).then(
      (names) => {
        if (asked === this.news) this.othersListen = names.some((name) => name !== realm)
      },
      () => {},
    )
  }

  close(): void {
    clearTimeout(this.recheck)
    this.member.leave()
  }
}
