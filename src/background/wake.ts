/**
 * Wakes the purger for writes made through other handles of the database: other tabs, other
 * app versions, other modules of the same page. Without it the purger, asleep until the next
 * expiry it knows of, would find what they made due only at its next check (up to
 * `maxIntervalMs`). Carried by a `BroadcastChannel` per database; where there is none, the purger
 * still finds everything at its next check.
 */
import { openChannel } from '../platform/channel.js'

/** A write (with the `ttl` fields it stored), or work due at once (without). */
export interface WakeMessage {
  store: string
  /** The write's time (epoch ms), which its items' `_ts` count from. */
  nowMs?: number
  /** The distinct `ttl` fields of the items written. */
  ttls?: unknown[]
}

export class WakeChannel {
  private readonly channel: BroadcastChannel | undefined

  /** `onWake` receives what the other handles post; omit it on a handle that never purges. */
  constructor(dbName: string, onWake?: (message: WakeMessage) => void) {
    this.channel = openChannel(`idb-ttl:wake:${dbName}`)
    if (onWake && this.channel) this.channel.onmessage = (event: MessageEvent<WakeMessage>) => onWake(event.data)
  }

  /** Items with these `ttl` fields were written to `store` at `nowMs`. */
  wrote(store: string, ttls: readonly unknown[], nowMs: number): void {
    this.channel?.postMessage({ store, nowMs, ttls: [...new Set(ttls)] } satisfies WakeMessage)
  }

  /** Work in `store` is due now: its default changed. */
  due(store: string): void {
    this.channel?.postMessage({ store } satisfies WakeMessage)
  }

  close(): void {
    this.channel?.close()
  }
}
