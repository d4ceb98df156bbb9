/**
 * Expiry events (SPEC §8): which stores some connection listens to, and delivery to one
 * handle's listeners. Presence is what makes the purge read values: a purge reads item values
 * only while some connection, in any tab, listens to the store. A handle with listeners holds a
 * Web Lock whose name lists its stores, so the purger (a worker, another tab) sees it with
 * `navigator.locks.query()`; a tab that closes drops its locks. Handles of the same realm are
 * also known directly (and are all there is where Web Locks are missing).
 */
import { joinBus, type Member } from '../platform/bus.js'
import { holdLock, uniqueId } from '../platform/lock.js'
import type { GenerationValues } from '../generations/values.js'
import { hasGenerations, refOf } from '../layout/generation-index.js'
import { unstamp } from '../layout/stamp.js'
import { kindOf, TtlError } from '../rules/errors.js'
import { lockSafe } from '../platform/lock-name.js'

/** Why items left a store: their time was up, or they were evicted to make room (SPEC §9). */
export type ExpireReason = 'expired' | 'evicted'

/** One deleted item, as an expiry event reports it. */
export interface DeletedItem {
  key: IDBValidKey
  value: unknown
  /**
   * `value` is a row of a store that keeps its values in generations and refers to its value
   * there: it is read from there before the item is reported. Only such stores' rows are
   * references; elsewhere a field shaped like one (`$gen`) is the app's own.
   */
  stashed?: true
}

/** A deleted item as read from `store` (`row`: as stored, bookkeeping included), for an expiry event. */
export function deletedItem(store: IDBObjectStore, key: IDBValidKey, row: unknown): DeletedItem {
  const value = unstamp(row)
  return row !== undefined && hasGenerations(store) && refOf(row) ? { key, value, stashed: true } : { key, value }
}

/** What `onExpire` listeners receive, once per deletion, after the deleting transaction committed. */
export interface ExpireEvent {
  store: string
  reason: ExpireReason
  /** The items as they were stored, `_ts` included. */
  items: { key: IDBValidKey; value: unknown }[]
}

export interface ExpireOptions {
  /** Only events of these stores; default: every store. */
  stores?: readonly string[]
}

type Listener = (event: ExpireEvent) => void

/** The Web Locks a handle with listeners holds: their names start with this, and list its stores. */
export const lockPrefix = (dbName: string) => `idb-ttl:listen:${lockSafe(dbName)}:`
/** Per database, the handles of this realm that have listeners. */
export const local = new Map<string, Set<ExpiryListeners>>()
/** The member each database's events are published from in this realm: it never leaves. */
const publishers = new Map<string, Member>()

/** An event on the bus: `journal` names its entry in the purge's journal, when it has one. */
type Published = ExpireEvent & { journal?: string }

declare module '../platform/bus.js' {
  interface BusTopics {
    expired: Published
    /** A handle now listens to these stores (`'*'`: all), for purges already running. */
    listening: '*' | string[]
  }
}

/** How many journal ids a handle remembers to hear an event published again only once. */
const REMEMBERED = 1024

/** Per database, the publication still reading values from generations: later ones wait for it. */
const reading = new Map<string, Promise<void>>()

/**
 * Reports deleted items to every listening handle of the database, in every tab and in this
 * realm too: the publisher is a member of the bus of its own, so every handle hears it.
 * Values kept in generations are read from there first, with `generations` (a full handle's or
 * the purge's: only they delete from stores that keep generations); events keep their order
 * meanwhile. `journal` names the event's entry in the purge's journal: an event published again
 * under the same name is heard once. Resolves once posted: `false` if it could not be.
 */
export function publish(
  dbName: string,
  event: Omit<ExpireEvent, 'items'> & { items: readonly DeletedItem[] },
  generations: GenerationValues | undefined,
  journal?: string,
): Promise<boolean> {
  const before = reading.get(dbName)
  const tag = journal === undefined ? {} : { journal }
  const items = event.items.map(({ key, value }) => ({ key, value }))
  const stashed = event.items.some((item) => item.stashed)
  if (!before && !stashed) return Promise.resolve(post(dbName, { ...event, items, ...tag }))
  const rows = event.items.map((item) => (item.stashed ? item.value : undefined))
  const values = (stashed ? generations!.resolve(dbName, event.store, rows) : Promise.resolve(rows)).catch(() => rows.map(() => undefined))
  const posted = (before ?? Promise.resolve()).then(async () => {
    const resolved = await values
    const items = event.items.map((item, i) => ({ key: item.key, value: item.stashed ? resolved[i] : item.value }))
    return post(dbName, { ...event, items, ...tag })
  })
  const settled = posted.then(() => {})
  reading.set(dbName, settled)
  void settled.then(() => reading.get(dbName) === settled && reading.delete(dbName))
  return posted
}

/** Posts on the database's bus; `false` when it could not (a closed channel loses this event, not the ones after it). */
function post(dbName: string, event: Published): boolean {
  let publisher = publishers.get(dbName)
  if (!publisher) publishers.set(dbName, (publisher = joinBus(dbName)))
  try {
    publisher.post('expired', event)
    return true
  } catch {
    return false
  }
}

/** The listeners registered on one handle. */
export class ExpiryListeners {
  private readonly listeners = new Map<Listener, ReadonlySet<string> | undefined>()
  private releasePresence: (() => void) | undefined
  private member: Member | undefined
  /** The journal ids of the events heard lately, oldest first. */
  private readonly heard = new Set<string>()

  constructor(private readonly dbName: string) {}

  /**
   * Registers `listener`; returns the function that removes it.
   * @throws TtlError `INVALID_OPTION` for a listener that is not a function or a malformed filter
   */
  add(listener: Listener, options: ExpireOptions = {}): () => void {
    checkListener(listener, options)
    this.listeners.set(listener, options.stores ? new Set(options.stores) : undefined)
    this.announce()
    return () => {
      if (this.listeners.delete(listener)) this.announce()
    }
  }

  /** What this handle's listeners want (`'*'`: every store); `undefined` when there are none. */
  get listening(): ReadonlySet<string> | '*' | undefined {
    if (this.listeners.size === 0) return undefined
    const stores = new Set<string>()
    for (const filter of this.listeners.values()) {
      if (!filter) return '*'
      for (const store of filter) stores.add(store)
    }
    return stores
  }

  /** Calls every listener whose filter takes `event.store`; a listener's error stays its own. */
  deliver(event: ExpireEvent): void {
    for (const [listener, filter] of this.listeners) {
      if (filter && !filter.has(event.store)) continue
      try {
        listener(event)
      } catch {
        // One listener's failure must neither stop the others nor the purge that reported.
      }
    }
  }

  /** An event from the bus: one published again from the journal (`journal`) is delivered once. */
  private hear({ journal, ...event }: Published): void {
    if (journal !== undefined) {
      if (this.heard.has(journal)) return
      this.heard.add(journal)
      if (this.heard.size > REMEMBERED) this.heard.delete(this.heard.values().next().value!)
    }
    this.deliver(event)
  }

  /** Removes every listener and the presence. */
  clear(): void {
    this.listeners.clear()
    this.announce()
  }

  private announce(): void {
    this.releasePresence?.()
    this.releasePresence = undefined
    const listening = this.listening
    const handles = local.get(this.dbName) ?? new Set()
    if (listening === undefined) {
      handles.delete(this)
      if (handles.size === 0) local.delete(this.dbName)
      this.member?.leave()
      this.member = undefined
      return
    }
    local.set(this.dbName, handles.add(this))
    const stores = listening === '*' ? '*' : [...listening]
    this.releasePresence = holdLock(`${lockPrefix(this.dbName)}${uniqueId()}:${stores === '*' ? '*' : JSON.stringify(stores)}`)?.release
    this.member ??= joinBus(this.dbName).on('expired', (event) => this.hear(event))
    this.member.post('listening', stores)
  }
}

/** `onExpire(listener, options)` as TypeScript would have it: a function, and store names in an array. */
function checkListener(listener: unknown, options: unknown): void {
  if (typeof listener !== 'function') {
    throw new TtlError('INVALID_OPTION', `onExpire needs a function to call; got ${kindOf(listener)}`)
  }
  if (options === null || typeof options !== 'object') {
    throw new TtlError('INVALID_OPTION', `onExpire options must be an object ({ stores: [names] }); got ${kindOf(options)}`)
  }
  const { stores } = options as ExpireOptions
  if (stores !== undefined && !(Array.isArray(stores) && stores.every((store) => typeof store === 'string'))) {
    const got = typeof stores === 'string' ? `the string ${JSON.stringify(stores)}` : kindOf(stores)
    throw new TtlError('INVALID_OPTION', `onExpire options.stores must be an array of store names; got ${got}`)
  }
}
