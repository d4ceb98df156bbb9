/**
 * The notices of an `idb-ttl/core` handle: `notices.ts`' {@link Presence}, made at the handle's
 * first change with the code `load` brings, so that the core's first load carries none of it.
 */
import type { Notices, Presence } from './notices.js'

/**
 * Notices of database `name` that load at the first change; the changes made while they load are
 * told in order once they have. A change whose notices could not load is lost, as a message no
 * realm heard; the next one loads them again. After `close()` a change still reaches this realm's
 * live queries, and no other realm, as a {@link Presence} closed at once tells it.
 */
export function lazyNotices(name: string, load: () => Promise<typeof Presence>): Notices {
  let presence: Promise<Presence> | undefined
  let closed = false
  return {
    changed(stores) {
      // A change made after close() closes what it made or found again, as close() did before it.
      const late = closed
      const told = (presence ?? load().then((Made) => new Made(name))).then((made) => {
        made.changed(stores)
        if (late) made.close()
        return made
      })
      presence = told
      told.catch(() => {
        if (presence === told) presence = undefined
      })
    },
    close() {
      closed = true
      presence?.then((made) => made.close(), () => {})
    },
  }
}
