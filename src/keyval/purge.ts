/**
 * The purge: expired entries leave the disk at idle on the page, in small batches, with no worker
 * (SPEC §14). A round reads the store from its first key to its last, one batch per idle callback
 * (`setTimeout` where there is no `requestIdleCallback`: workers, WebKit), deleting in the batch's
 * own transaction what is expired by then; it notes the earliest expiry it meets and sleeps until
 * then. A store's first call starts a round (for what earlier pages left); a write that expires
 * and a read that meets an expired entry ask for one at the right time. Reads never rely on it.
 */
import { expiryOf } from './entry.js'
import { promisifyRequest } from './request.js'
import { nowOf } from './settings.js'
import type { UseStore } from './types.js'

/** Entries read per batch: one short transaction per idle callback, so that the app's requests wait little. */
const BATCH = 50
/** setTimeout's longest delay (about 24.8 days): a longer one would fire at once. */
const MAX_DELAY = 2 ** 31 - 1

interface Round {
  /** When the next round starts, epoch ms by the store's clock; `Infinity`: none is due. */
  due: number
  timer?: ReturnType<typeof setTimeout>
  /** A round is under way: what is asked meanwhile goes to `next`. */
  running?: boolean
  /** The last key the running round read. */
  after?: IDBValidKey
  /** The earliest expiry the running round met or was told of. */
  next: number
}

const rounds = new WeakMap<UseStore, Round>()

/** Asks for a purge of `use` once `when` (epoch ms by the store's clock) has come. */
export function purgeAt(use: UseStore, when: number): void {
  let round = rounds.get(use)
  if (!round) rounds.set(use, (round = { due: Infinity, next: Infinity })), (when = 0)
  if (round.running) round.next = Math.min(round.next, when)
  else if (when < round.due) {
    const starting = round
    clearTimeout(round.timer)
    round.due = when
    round.timer = setTimeout(
      () => {
        starting.running = true
        starting.due = Infinity
        idle(() => batch(use, starting))
      },
      Math.min(when - nowOf(use), MAX_DELAY),
    )
    // In Node (fake-indexeddb), a pending purge does not keep the process alive.
    ;(round.timer as { unref?: () => void }).unref?.()
  }
}

function idle(task: () => void): void {
  if (typeof requestIdleCallback == 'function') requestIdleCallback(task)
  else setTimeout(task, 1)
}

/** Reads one batch after `round.after` and deletes what is expired in it; resolves to whether more follows. */
function batch(use: UseStore, round: Round): void {
  const now = nowOf(use)
  use('readwrite', (store) => {
    const expired: IDBValidKey[] = []
    let read = 0
    const request = store.openCursor(round.after === undefined ? null : IDBKeyRange.lowerBound(round.after, true))
    return new Promise<IDBCursor | null>((resolve, reject) => {
      request.onerror = () => reject(request.error)
      request.onsuccess = () => {
        const cursor = request.result
        if (cursor && read++ < BATCH) {
          const expiry = expiryOf(cursor.value) ?? Infinity
          if (now >= expiry) expired.push(cursor.primaryKey)
          else round.next = Math.min(round.next, expiry)
          round.after = cursor.primaryKey
          cursor.continue()
        } else {
          // Deleted once the cursor is done, not through it: deleting inside a cursor broke in
          // Safari (workbox-expiration collects keys first for that reason).
          for (const key of expired) store.delete(key)
          resolve(promisifyRequest(store.transaction).then(() => cursor))
        }
      }
    })
  })
    // A failed batch (the database deleted meanwhile) ends the round like the last one.
    .catch(() => null)
    .then((more) => {
      if (more) return idle(() => batch(use, round))
      const next = round.next
      round.running = false
      round.after = undefined
      round.next = Infinity
      purgeAt(use, next)
    })
}
