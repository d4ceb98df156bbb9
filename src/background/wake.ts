/**
 * Wakes the purger for writes made through other handles of the database: other tabs, other
 * app versions, other modules of the same page. Without it the purger, asleep until the next
 * expiry it knows of, would find what they made due only at its next check (up to
 * `maxIntervalMs`). Carried on the database's bus (topic `wake`); where there is no
 * BroadcastChannel, the purger still finds what other tabs made due at its next check.
 */
import { joinBus, type Member } from '../platform/bus.js'

/** A write (with the `ttl` fields it stored), or work due at once (without). */
export interface WakeMessage {
  store: string
  /** The write's time (epoch ms), which its items' `_ts` count from. */
  nowMs?: number
  /** The distinct `ttl` fields of the items written. */
  ttls?: unknown[]
}

declare module '../platform/bus.js' {
  interface BusTopics {
    wake: WakeMessage
  }
}

export class WakeChannel {
  private readonly member: Member

  /** `onWake` receives what the other handles post; omit it on a handle that never purges. */
  constructor(dbName: string, onWake?: (message: WakeMessage) => void) {
    this.member = joinBus(dbName)
    if (onWake) this.member.on('wake', onWake)
  }

  /** Items with these `ttl` fields were written to `store` at `nowMs`. */
  wrote(store: string, ttls: readonly unknown[], nowMs: number): void {
    this.member.post('wake', { store, nowMs, ttls: [...new Set(ttls)] })
  }

  /** Work in `store` is due now: its default changed. */
  due(store: string): void {
    this.member.post('wake', { store })
  }

  close(): void {
    this.member.leave()
  }
}
