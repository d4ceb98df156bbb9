/**
 * The purge: expired entries leave the disk at idle on the page, in small batches, with no worker
 * (SPEC §14). A round reads the store from its first key to its last, one batch per idle callback
 * (`setTimeout` where there is no `requestIdleCallback`: workers, WebKit), deleting in the batch's
 * own transaction what is expired by then, and notes the earliest expiry it meets: the next round
 * starts then. A store's connection starts a round when it opens (for what earlier pages left), and
 * so does a read that meets an expired entry (written by another page, or by this one while its
 * timer slept); a write that expires asks for one at its expiry. Reads never rely on it.
 */
import { expiryOf } from './entry.js'
import { promisifyRequest } from './request.js'
import { nowOf, stateOf, type State } from './state.js'
import type { UseStore } from './types.js'

/** Entries read per batch: one short transaction per idle callback, so that the app's requests wait little. */
const BATCH = 50
/** setTimeout's longest delay (about 24.8 days). */
const MAX_DELAY = 2 ** 31 - 1

/** Asks for a purge round of `use` once `when` (epoch ms by the store's clock) has come. */
export function purgeAt(use: UseStore, when: number): void {
  const state = stateOf(use)
  if (when < state.next) {
    state.next = when
    if (state.after === undefined) {
      clearTimeout(state.timer)
      state.timer = setTimeout(
        () => {
          state.after = null
          state.next = Infinity
          idle(() => batch(use, state))
        },
        // Browsers convert the delay to a 32-bit integer: one below -2^31 (a round asked for at
        // once is due at 0) or above 2^31 - 1 would wrap around to hours or fire at once.
        Math.max(0, Math.min(when - nowOf(state), MAX_DELAY)),
      )
    }
  }
}

function idle(task: () => void): void {
  ;(globalThis.requestIdleCallback || setTimeout)(task)
}

/** Reads one batch after `state.after`, deletes what is expired in it, and goes on at idle or ends the round. */
function batch(use: UseStore, state: State): void {
  const now = nowOf(state)
  use('readwrite', (store) => {
    const range = state.after == null ? null : IDBKeyRange.lowerBound(state.after, true)
    return Promise.all([promisifyRequest(store.getAllKeys(range, BATCH)), promisifyRequest(store.getAll(range, BATCH))]).then(([keys, values]) => {
      // Deleted by key after the batch is read (deleting inside a cursor broke in Safari, as
      // workbox-expiration found), in the transaction that read it: a write in between is not lost.
      keys.forEach((key, i) => {
        const expiry = expiryOf(values[i]) ?? Infinity
        if (now >= expiry) store.delete(key)
        else if (expiry < state.next) state.next = expiry
      })
      // A short batch was the last: `undefined` ends the round.
      state.after = keys[BATCH - 1]
      return promisifyRequest(store.transaction)
    })
  })
    // A failed batch (the database deleted meanwhile) ends the round like the last one.
    .catch(() => (state.after = undefined))
    .then(() => {
      if (state.after !== undefined) return idle(() => batch(use, state))
      const next = state.next
      state.next = Infinity
      purgeAt(use, next)
    })
}
