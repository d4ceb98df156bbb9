/**
 * What a subscribed live query does (`subscribers.ts`, with which the page entries load it at a
 * handle's first subscription, issue #44): it hears the changes of its store in every realm, reads again after
 * them and when the first item of its result expires, and never lets two readings overlap: changes
 * heard during one make one more, so a burst costs at most two. The realm's registry of who hears
 * changes (`notices.ts`) is handed in (`hub.ts` `liveRealm`), never imported: a chunk loaded later
 * may be another copy's.
 */
import { ExpiryTimer } from './expiry-timer.js'
import type { Hearer } from './notices.js'
import type { LiveResult } from './result.js'

/** What a subscribed query follows: its store, its reading, and the realm's hearing of changes. */
export interface Followed {
  dbName: string
  store: string
  clock: () => number
  read(): Promise<LiveResult>
  hearChanges(dbName: string, hear: Hearer): () => void
}

/** Who is told of each reading, or of the first that failed. */
export interface Follower {
  result(result: LiveResult): void
  fail(error: unknown): void
}

/** One subscribed stretch of a live query: from its first subscriber to its last unsubscribe. */
export class Follow {
  private readonly timer: ExpiryTimer
  private readonly unhear: () => void
  private reading = false
  private again = false
  private pass: ReturnType<typeof setTimeout> | undefined
  /** Set at stop: a reading started before is dropped. */
  private stopped = false

  constructor(
    private readonly followed: Followed,
    private readonly follower: Follower,
  ) {
    const { dbName, store, clock } = followed
    this.timer = new ExpiryTimer(clock, () => this.changed())
    this.unhear = followed.hearChanges(dbName, (stores) => (stores.includes(store) || stores.includes('*')) && this.changed())
    void this.read()
  }

  stop(): void {
    this.stopped = true
    this.unhear()
    this.timer.clear()
    clearTimeout(this.pass)
  }

  /** Something the result depends on changed: read again, after the changes of this task. */
  private changed(): void {
    if (this.stopped) return
    if (this.reading) this.again = true
    else this.pass ??= setTimeout(() => {
      this.pass = undefined
      void this.read()
    }, 0)
  }

  private async read(): Promise<void> {
    this.reading = true
    this.again = false
    let result: LiveResult
    try {
      result = await this.followed.read()
    } catch (error) {
      if (!this.stopped) this.follower.fail(error)
      return
    }
    if (this.stopped) return
    this.reading = false
    this.timer.set(result.nextExpiryMs)
    this.follower.result(result)
    if (this.again) this.changed()
  }
}
