/**
 * The one message bus of a database: what crosses tabs and workers (a purger woken by a write,
 * watermarks raised by a change of setting, expiry events, a purger asking for owed touches)
 * travels on a single `BroadcastChannel` per database and realm, each message under its topic.
 * Every mechanism declares its topic and message type by adding to {@link BusTopics}, so that
 * this module knows none of them.
 *
 * A message reaches every other member of the database's bus: in other realms through the
 * channel, in this realm directly (a channel does not hear itself), never the member that sent
 * it. Where there is no BroadcastChannel, only this realm hears.
 */

/**
 * Topic → message, added to by each mechanism with `declare module '…/platform/bus.js'`.
 * Kept empty here on purpose: the bus carries what others declare.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface BusTopics {}

export type Topic = keyof BusTopics

interface Envelope<T extends Topic = Topic> {
  topic: T
  message: BusTopics[T]
}

interface Shared {
  channel: BroadcastChannel | undefined
  members: Set<Member>
}

const buses = new Map<string, Shared>()

/**
 * A channel that does not keep a Node process alive: a handle that was never closed must not
 * stop a script from exiting (browsers have no `unref`).
 */
function openChannel(name: string): BroadcastChannel | undefined {
  if (typeof BroadcastChannel !== 'function') return undefined
  const channel = new BroadcastChannel(name)
  ;(channel as { unref?: () => void }).unref?.()
  return channel
}

/** One member of a database's bus: its listeners, and what it posts. */
export class Member {
  private readonly listeners = new Map<Topic, (message: never) => void>()
  private shared: Shared | undefined

  /** @internal Use {@link joinBus}. */
  constructor(private readonly dbName: string) {
    let shared = buses.get(dbName)
    if (!shared) {
      const channel = openChannel(`idb-ttl:${dbName}`)
      const created: Shared = { channel, members: new Set() }
      if (channel) channel.onmessage = (event: MessageEvent<Envelope>) => deliver(created, event.data)
      buses.set(dbName, (shared = created))
    }
    shared.members.add(this)
    this.shared = shared
  }

  /** Calls `listener` with each message of `topic` that another member posts. One per topic. */
  on<T extends Topic>(topic: T, listener: (message: BusTopics[T]) => void): this {
    this.listeners.set(topic, listener as (message: never) => void)
    return this
  }

  /** Sends `message` to every other member, in every realm. A member that left posts nothing. */
  post<T extends Topic>(topic: T, message: BusTopics[T]): void {
    const shared = this.shared
    if (!shared) return
    const envelope: Envelope<T> = { topic, message }
    shared.channel?.postMessage(envelope)
    // As a channel would: in a later task, so a listener never runs inside the poster's call.
    setTimeout(() => deliver(shared, envelope, this), 0)
  }

  /** @internal */
  hear(envelope: Envelope): void {
    ;(this.listeners.get(envelope.topic) as ((message: unknown) => void) | undefined)?.(envelope.message)
  }

  /** Stops listening and posting; the database's channel closes with its last member. */
  leave(): void {
    const shared = this.shared
    if (!shared) return
    this.shared = undefined
    shared.members.delete(this)
    if (shared.members.size > 0 || buses.get(this.dbName) !== shared) return
    shared.channel?.close()
    buses.delete(this.dbName)
  }
}

function deliver(shared: Shared, envelope: Envelope, sender?: Member): void {
  for (const member of shared.members) if (member !== sender) member.hear(envelope)
}

/** Joins the bus of database `dbName` in this realm; {@link Member.leave} when done. */
export function joinBus(dbName: string): Member {
  return new Member(dbName)
}
